/** The mock server as a library: `startMock()` for test suites, and what `pc mock` composes. */
export { ConfigError, check, defaultDbFile, defaults, type MockConfigShape } from "./Config.js"
export { readyMessage } from "./Ready.js"
export { type Started, start } from "./Server.js"
export { type RunningMock, type StartMockOptions, startMock, type TestMerchant } from "./StartMock.js"
export {
  TEST_MERCHANT_APP_KEY,
  TEST_MERCHANT_KEY_VERSION,
  testMerchantPrivateKeyFile,
  testMerchantPrivateKeyPem,
  testMerchantPublicKeyFile,
  testMerchantPublicKeyPem
} from "./TestMerchant.js"
export * as MockClient from "./client/MockClient.js"
export type { MockEvent, SignatureNote } from "./events/MockEvents.js"
export * as WireErrors from "./http/WireErrors.js"
