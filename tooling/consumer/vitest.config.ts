import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// One project in a temp folder, installed once (beforeAll), used by every test in order.
export default mergeConfig(
  shared,
  defineConfig({
    test: { testTimeout: 180_000, hookTimeout: 600_000, fileParallelism: false }
  })
)
