import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// One registry, one publish, then the merchant's projects in order (each test needs the one before).
export default mergeConfig(
  shared,
  defineConfig({
    test: { testTimeout: 600_000, hookTimeout: 180_000, fileParallelism: false }
  })
)
