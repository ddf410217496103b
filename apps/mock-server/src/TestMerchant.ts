/**
 * The pre-configured test merchant of every environment (CONTRACT.md). Its key pair is published in
 * `test-merchant/` on purpose, for testing against the mock only: it is not a secret and must never
 * be used against the real service.
 */
import { readFileSync } from "node:fs"

/** The test merchant's fixed appKey, the same in every environment. */
export const TEST_MERCHANT_APP_KEY = "7e57c0de-0000-4000-8000-000000000001"

const file = (name: string) => new URL(`../test-merchant/${name}`, import.meta.url)

/** The test merchant's key version 1, public half (SPKI PEM). */
export const testMerchantPublicKeyPem = (): string => readFileSync(file("TEST-ONLY-public-key.pem"), "utf8")

/** The test merchant's key version 1, private half (PKCS#8 PEM). TEST ONLY: published in the repository. */
export const testMerchantPrivateKeyPem = (): string => readFileSync(file("TEST-ONLY-private-key.pem"), "utf8")
