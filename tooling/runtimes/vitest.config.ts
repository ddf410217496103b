import { defineConfig } from "vitest/config"

// Verbose, so the output names every case with the runtime (and its version) it ran in. The timeouts
// are for starting runtimes and waiting on real callbacks on a loaded machine, not for speed.
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], reporters: ["verbose"], testTimeout: 30_000, hookTimeout: 120_000 }
})
