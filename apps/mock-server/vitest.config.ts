import { excludedWithout } from "@pc/servers"
import { configDefaults, defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // With PC_NO_SYSTEM_PACKAGES=1 and a Debian package missing, the suites that need it are left
      // out and named (the PostgreSQL store, the replicas, the pages in Chromium).
      exclude: [
        ...configDefaults.exclude,
        ...excludedWithout({
          "test/Store.test.ts": ["postgresql"],
          "test/Replicas.test.ts": ["postgresql"],
          "test/DatabaseRestart.test.ts": ["postgresql"],
          "test/FaultsReplicas.test.ts": ["postgresql"],
          "test/ClockReplicas.test.ts": ["postgresql"],
          "test/Secrets.test.ts": ["postgresql"],
          "test/DatabaseStart.test.ts": ["postgresql"],
          "test/Checkout.test.ts": ["chromium"],
          "test/CheckoutLayout.test.ts": ["chromium"],
          "test/Dashboard.test.ts": ["chromium"],
          "test/AuditDashboard.test.ts": ["chromium"],
          "test/Docs.test.ts": ["chromium"],
          "test/ClockDashboard.test.ts": ["chromium"],
          "test/CrossSite.test.ts": ["chromium"]
        })
      ],
      testTimeout: 30_000,
      hookTimeout: 30_000
    }
  })
)
