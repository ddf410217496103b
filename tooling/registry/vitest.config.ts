import { defineConfig } from "vitest/config"

// One registry, one publish, then the merchant's projects in order (each test needs the one before).
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 600_000, hookTimeout: 180_000, fileParallelism: false }
})
