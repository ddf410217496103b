import { configDefaults, defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"
import { excludedWithout } from "./SystemPackages.mjs"

// The servers start for real (initdb, postgres, mariadbd, redis-server) and are awaited by their ready lines,
// not by time; the timeouts only have to outlast a start-up on a loaded machine (initdb alone takes
// tens of seconds at a load of 20 on 2 cores, where vitest's default 5 s failed).
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      exclude: [
        ...configDefaults.exclude,
        ...excludedWithout({ "test/Servers.test.ts": ["postgresql", "mariadb-server", "redis-server"] })
      ],
      // Its one file may be left out (above): a run with nothing left is not a failure.
      passWithNoTests: true,
      testTimeout: 180_000,
      hookTimeout: 180_000
    }
  })
)
