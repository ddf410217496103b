import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// Verbose, so the output names every case with the runtime (and its version) it ran in. The timeouts
// are for starting runtimes and waiting on real callbacks on a loaded machine, not for speed.
export default mergeConfig(
  shared,
  defineConfig({
    test: { reporters: ["verbose"], testTimeout: 30_000, hookTimeout: 120_000 }
  })
)
