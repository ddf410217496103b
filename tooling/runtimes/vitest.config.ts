import { defineConfig } from "vitest/config"

// Verbose, so the output names every case with the runtime (and its version) it ran in.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], reporters: ["verbose"], hookTimeout: 120_000 } })
