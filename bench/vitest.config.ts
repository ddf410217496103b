import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../vitest.shared.js"

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // The smoke run spawns every server under test; on a loaded 2-core machine that takes minutes.
      testTimeout: 600_000,
      hookTimeout: 600_000
    }
  })
)
