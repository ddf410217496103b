/// <reference types="@vitest/browser/providers/playwright" />
import { chromiumArgs, chromiumExecutable } from "@pc/chromium"
import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// The same tests run twice: in Node (its global WebCrypto) and inside a real headless Chromium.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Verbose, so the output names each test with the runtime it ran in ("… in chromium 156…").
      reporters: ["verbose"],
      projects: [
        { test: { name: "node", include: ["test/**/*.test.ts"], environment: "node" } },
        {
          test: {
            name: "chromium",
            include: ["test/**/*.test.ts"],
            testTimeout: 30_000,
            browser: {
              enabled: true,
              provider: "playwright",
              headless: true,
              screenshotFailures: false,
              instances: [
                {
                  browser: "chromium",
                  launch: { executablePath: chromiumExecutable, args: [...chromiumArgs] }
                }
              ]
            }
          }
        }
      ]
    }
  })
)
