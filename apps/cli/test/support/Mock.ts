// A real mock server in this process (port 0, in memory) for the CLI's tests, and its test merchant.
import { defaults, start, TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/mock-server"

export type Mock = Awaited<ReturnType<typeof start>>

export const startMock = (options: { readonly environment?: "sandbox" | "production" | "gray" } = {}) =>
  start({ ...defaults, environment: options.environment ?? "sandbox", port: 0, db: ":memory:", callbackBackoffMs: 500 })

export const testMerchant = { appKey: TEST_MERCHANT_APP_KEY, privateKeyPem: testMerchantPrivateKeyPem }
