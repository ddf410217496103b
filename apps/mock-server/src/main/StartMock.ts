/**
 * `startMock()`: an in-process mock for a merchant's test suite (CONTRACT.md "Running the mock"),
 * on a free port with an in-memory database unless told otherwise, with the test merchant's
 * TEST-ONLY key pair handed over ready to sign with.
 */
import type { Environment } from "@pc/core"
import * as LogLevel from "effect/LogLevel"
import { defaults, type MockConfigShape } from "../config/Config.js"
import type { FaultSetting } from "../config/Faults.js"
import { start } from "./Server.js"
import {
  TEST_MERCHANT_APP_KEY,
  TEST_MERCHANT_KEY_VERSION,
  testMerchantPrivateKeyPem,
  testMerchantPublicKeyPem
} from "./TestMerchant.js"

/** The options of {@link startMock}: the flags of `pc mock`, camel-cased, each optional. */
export interface StartMockOptions {
  /** `sandbox` (default), `production` or `gray`. */
  readonly environment?: Environment.Environment
  /** Address to bind; default `127.0.0.1`. */
  readonly host?: string
  /** Port; default 0 (any free one: read `url`). */
  readonly port?: number
  /** SQLite file, or `:memory:` (default). */
  readonly db?: string
  /** http(s) base of the URLs handed out (`h5Url`); default where the mock listens. */
  readonly publicUrl?: string
  /** First callback retry delay in ms; default 15000, doubling each attempt. */
  readonly callbackBackoffMs?: number
  /** Time allowed for one callback attempt in ms; default 10000. */
  readonly callbackTimeoutMs?: number
  /** Orders still `CREATED` after this many ms expire; default 30 minutes. */
  readonly orderTtlMs?: number
  /** Larger request bodies get `payloadTooLarge`; default 65536. */
  readonly bodyLimitBytes?: number
  /** Create-order requests per appKey per minute before `rateLimited`; default no limit. */
  readonly rateLimitPerMinute?: number
  /** The token every `/dev/` route then requires (`Authorization: Bearer <token>`); 16+ printable characters. Default none. */
  readonly devToken?: string
  /**
   * Faults injected on purpose from the start (CONTRACT.md "Faults and time"), seeded: e.g.
   * `{ seed: 7, createOrder: { lostResponseRate: 0.3 } }` stores the order and loses the answer 30%
   * of the time. `PUT /dev/faults` replaces it later.
   */
  readonly faults?: FaultSetting
  /** What the mock logs to stdout; default `"error"` (a test run stays quiet). */
  readonly logLevel?: "none" | "error" | "warning" | "info" | "debug"
}

/** The test merchant every environment has, with its TEST-ONLY key pair (never use it for real). */
export interface TestMerchant {
  readonly appKey: string
  readonly keyVersion: number
  /** PKCS#8 PEM. Published for testing only. */
  readonly privateKeyPem: string
  /** SPKI PEM. */
  readonly publicKeyPem: string
}

/** A running in-process mock. */
export interface RunningMock {
  /** Base URL of the mock, without a trailing slash (`http://127.0.0.1:53211`). */
  readonly url: string
  readonly environment: Environment.Environment
  readonly testMerchant: TestMerchant
  /** Stops the callback dispatcher, closes the server and the database. */
  readonly close: () => Promise<void>
}

const logLevels = {
  none: LogLevel.None,
  error: LogLevel.Error,
  warning: LogLevel.Warning,
  info: LogLevel.Info,
  debug: LogLevel.Debug
} as const

/**
 * Starts a mock in this process and resolves once it answers. Rejects with `ConfigError` for an
 * option the mock refuses (its message names the flag), and with an `Error` saying why when it
 * cannot start (a port in use, another mock on the same database file).
 *
 * @example
 * ```ts
 * import { startMock } from "@pc/mock-server"
 *
 * const mock = await startMock({ environment: "production" })
 * console.log(mock.url, mock.testMerchant.appKey)
 * await mock.close()
 * ```
 */
export const startMock = async (options: StartMockOptions = {}): Promise<RunningMock> => {
  const { logLevel, ...flags } = options
  const config: MockConfigShape = { ...defaults, port: 0, db: ":memory:", ...flags }
  const server = await start(config, { logLevel: logLevels[logLevel ?? "error"] })
  return {
    url: server.url,
    environment: server.environment,
    testMerchant: {
      appKey: TEST_MERCHANT_APP_KEY,
      keyVersion: TEST_MERCHANT_KEY_VERSION,
      privateKeyPem: testMerchantPrivateKeyPem(),
      publicKeyPem: testMerchantPublicKeyPem()
    },
    close: server.close
  }
}
