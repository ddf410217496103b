import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// One image built once (beforeAll: the stand-ins for the base images on a first run, minutes), then
// the container and the compose file in order.
export default mergeConfig(
  shared,
  defineConfig({
    test: { testTimeout: 180_000, hookTimeout: 420_000, fileParallelism: false }
  })
)
