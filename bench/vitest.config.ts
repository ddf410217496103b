import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The smoke run spawns every server under test; on a loaded 2-core machine that takes minutes.
    testTimeout: 600_000,
    hookTimeout: 600_000
  }
})
