/**
 * The pre-configured test merchant of every environment (CONTRACT.md). Its key pair is published in
 * `test-merchant/` (shipped inside the package) on purpose, for testing against the mock only: it is
 * not a secret and must never be used against the real service.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

/** The test merchant's fixed appKey, the same in every environment. */
export const TEST_MERCHANT_APP_KEY = "7e57c0de-0000-4000-8000-000000000001"

/** The key version of the test merchant's key pair. */
export const TEST_MERCHANT_KEY_VERSION = 1

// The files sit in the package's own test-merchant/ folder. Found through the package's name, not
// relative to this module: the same code runs from src/ (tests), from dist/ (the published build)
// and bundled into `pc`'s bin, which resolves the installed @pc/mock-server.
const packageRoot = dirname(createRequire(import.meta.url).resolve("@pc/mock-server/package.json"))
const file = (name: string) => join(packageRoot, "test-merchant", name)

/** Where the test merchant's TEST-ONLY private key file is on disk (PKCS#8 PEM). */
export const testMerchantPrivateKeyFile: string = file("TEST-ONLY-private-key.pem")

/** Where the test merchant's public key file is on disk (SPKI PEM). */
export const testMerchantPublicKeyFile: string = file("TEST-ONLY-public-key.pem")

/** The test merchant's key version 1, public half (SPKI PEM). */
export const testMerchantPublicKeyPem = (): string => readFileSync(testMerchantPublicKeyFile, "utf8")

/** The test merchant's key version 1, private half (PKCS#8 PEM). TEST ONLY: published in the repository. */
export const testMerchantPrivateKeyPem = (): string => readFileSync(testMerchantPrivateKeyFile, "utf8")
