import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      testTimeout: 30_000,
      hookTimeout: 30_000
    }
  })
)
