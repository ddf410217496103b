import { defineConfig } from "vitest/config"

// One project in a temp folder, installed once (beforeAll), used by every test in order.
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 600_000, fileParallelism: false }
})
