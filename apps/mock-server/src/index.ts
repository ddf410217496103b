/** The mock server as a library: for `pc mock` and for tests that start it in-process. */
export { ConfigError, check, defaultDbFile, defaults, fromArgs, type MockConfigShape } from "./Config.js"
export { main, readyMessage, run } from "./main.js"
export { start, type Started } from "./Server.js"
export { TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem, testMerchantPublicKeyPem } from "./TestMerchant.js"
export * as MockClient from "./client/MockClient.js"
export * as WireErrors from "./http/WireErrors.js"
