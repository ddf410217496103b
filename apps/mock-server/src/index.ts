/** The mock server as a library: `startMock()` for test suites, and what `pc mock` composes. */
export { ConfigError, check, defaultDbFile, defaults, type MockConfigShape } from "./config/Config.js"
export { FaultSetting } from "./config/Faults.js"
export { readyMessage } from "./main/Ready.js"
export { type Started, start } from "./main/Server.js"
export { type RunningMock, type StartMockOptions, startMock, type TestMerchant } from "./main/StartMock.js"
export {
  TEST_MERCHANT_APP_KEY,
  TEST_MERCHANT_KEY_VERSION,
  testMerchantPrivateKeyFile,
  testMerchantPrivateKeyPem,
  testMerchantPublicKeyFile,
  testMerchantPublicKeyPem
} from "./main/TestMerchant.js"
export * as MockClient from "./api/MockClient.js"
export type { MockEvent, SignatureNote } from "./events/MockEvents.js"
export * as WireErrors from "./api/WireErrors.js"
