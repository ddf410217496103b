import { excludedWithout } from "@pc/servers"
import { configDefaults, defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // With PC_NO_SYSTEM_PACKAGES=1 and a Debian package missing, the suites that need it are left
    // out and named (the PostgreSQL store, the replicas, the pages in Chromium).
    exclude: [
      ...configDefaults.exclude,
      ...excludedWithout({
        "test/Store.test.ts": ["postgresql"],
        "test/Replicas.test.ts": ["postgresql"],
        "test/Checkout.test.ts": ["chromium"],
        "test/CheckoutLayout.test.ts": ["chromium"],
        "test/Dashboard.test.ts": ["chromium"],
        "test/Docs.test.ts": ["chromium"]
      })
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
