import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// Generating real RSA keys (3072 bits, two pairs per test) is seconds of CPU on a quiet machine; at a
// load of 20 on 2 cores it overran vitest's default 5 s. The timeout only has to outlast a loaded
// machine; every key is still generated and every assertion stays.
export default mergeConfig(
  shared,
  defineConfig({
    test: { testTimeout: 120_000 }
  })
)
