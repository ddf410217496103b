import { excludedWithout } from "@pc/servers"
import { configDefaults, defineConfig, mergeConfig } from "vitest/config"
import shared from "../vitest.shared.js"

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // The smoke run's pg suite needs Debian's PostgreSQL: with PC_NO_SYSTEM_PACKAGES=1 and it
      // missing, the smoke test is left out and named; otherwise the suite fails with its message.
      exclude: [...configDefaults.exclude, ...excludedWithout({ "test/Smoke.test.ts": ["postgresql"] })],
      // The smoke run spawns every server under test; on a loaded 2-core machine that takes minutes.
      testTimeout: 600_000,
      hookTimeout: 600_000
    }
  })
)
