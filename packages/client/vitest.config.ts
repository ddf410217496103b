import { excludedWithout } from "@pc/servers"
import { configDefaults, defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// The shared replay guards run against real servers from Debian's packages; with
// PC_NO_SYSTEM_PACKAGES=1 and a package missing, the suites that need it are left out and named.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      exclude: [
        ...configDefaults.exclude,
        ...excludedWithout({
          "test/ReplayRedis.test.ts": ["redis-server"],
          "test/ReplaySql.test.ts": ["postgresql", "mariadb-server"],
          "test/ReplayReadme.test.ts": ["redis-server", "postgresql", "mariadb-server"],
          "test/DatabaseRestart.test.ts": ["postgresql"]
        })
      ]
    }
  })
)
