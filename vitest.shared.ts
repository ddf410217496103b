// What every package's vitest config shares (each merges it with `mergeConfig` and adds only what is
// its own): where tests live, and timeouts for a loaded machine. The tests start real servers, real
// processes and real RSA keys on 2 cores shared by several runs; vitest's default 5 s failed there
// while nothing was wrong. A timeout only has to outlast such a machine; every assertion stays.
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
