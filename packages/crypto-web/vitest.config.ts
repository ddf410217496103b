/// <reference types="@vitest/browser/providers/playwright" />
import { chromiumArgs, chromiumExecutable } from "@pc/chromium"
import { existsSync } from "node:fs"
import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// With PC_NO_SYSTEM_PACKAGES=1 and no Chromium, the browser half is left out, and said so.
const withoutChromium = process.env.PC_NO_SYSTEM_PACKAGES === "1" && !existsSync(chromiumExecutable)
if (withoutChromium)
  console.warn("skipped the chromium project: needs chromium, not installed (PC_NO_SYSTEM_PACKAGES=1)")

// The same tests run twice: in Node (its global WebCrypto) and inside a real headless Chromium.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Verbose, so the output names each test with the runtime it ran in ("… in chromium 156…").
      reporters: ["verbose"],
      projects: [
        { test: { name: "node", include: ["test/**/*.test.ts"], environment: "node" } },
        ...(withoutChromium
          ? []
          : [
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
            ])
      ]
    }
  })
)
