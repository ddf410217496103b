// A real mock server in this process (port 0, in memory) for the CLI's tests, and its test merchant.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaults, start, TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/mock-server"

export type Mock = Awaited<ReturnType<typeof start>>

export const startMock = (options: { readonly environment?: "sandbox" | "production" | "gray" } = {}) =>
  start({ ...defaults, environment: options.environment ?? "sandbox", port: 0, db: ":memory:", callbackBackoffMs: 500 })

export const testMerchant = { appKey: TEST_MERCHANT_APP_KEY, privateKeyPem: testMerchantPrivateKeyPem }

/** The environment of a `pc` process acting as the test merchant on `mock` (its key in a 0600 file). */
export const merchantEnv = (
  mock: Mock,
  environment: "sandbox" | "production" | "gray",
  configDir: string
): Record<string, string> => {
  const keyFile = join(mkdtempSync(join(tmpdir(), "pc-merchant-")), "merchant-private.pem")
  writeFileSync(keyFile, testMerchant.privateKeyPem(), { mode: 0o600 })
  return {
    PC_CONFIG_DIR: configDir,
    PC_BASE_URL: mock.url,
    PC_ENV: environment,
    PC_APP_KEY: testMerchant.appKey,
    PC_KEY_FILE: keyFile
  }
}
