/**
 * How one mock server process runs: its environment, where it listens, where it keeps its data,
 * and the timings of callbacks and orders. The flags of CONTRACT.md "Running the mock" are parsed by
 * `pc mock` (@effect/cli, the one flag parser); {@link check} is the one validation of the result.
 */
import type { Environment } from "@pc/core"
import { Environment as Env } from "@pc/core"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type { FaultSetting } from "./Faults.js"
import { checkHttpUrl, isWildcardHost } from "./UrlRule.js"

export interface MockConfigShape {
  readonly environment: Environment.Environment
  readonly host: string
  /** 0 picks a free port (tests). */
  readonly port: number
  /** A SQLite file, or `:memory:`. */
  readonly db: string
  /** Base of absolute URLs the mock hands out (h5Url); defaults to http://host:port. */
  readonly publicUrl: string | undefined
  /** First callback retry delay; doubles each attempt. */
  readonly callbackBackoffMs: number
  /** Give up on a delivery this long after it was created (24 h). */
  readonly callbackMaxAgeMs: number
  /** Time allowed for one callback attempt. */
  readonly callbackTimeoutMs: number
  /**
   * The longest the callback dispatcher sleeps before it looks for due work again (1 s). Work this
   * process makes wakes it at once; the look is for what it cannot hear of: another replica's
   * moves on a shared database, a crashed replica's leases running out.
   */
  readonly callbackPollMs: number
  /** Request bodies over this many bytes get payloadTooLarge. */
  readonly bodyLimitBytes: number
  /** Orders still CREATED this long after creation expire. */
  readonly orderTtlMs: number
  /** Create-order requests per appKey per minute; undefined means no limit. */
  readonly rateLimitPerMinute: number | undefined
  /**
   * The developer token: bound to an address that is not loopback, every /dev route and dashboard
   * action requires `Authorization: Bearer <token>`. Undefined there: the mock generates one and
   * prints it. Bound to loopback it is required too when given.
   */
  readonly devToken: string | undefined
  /** Faults injected on purpose from the start (`--faults`, `startMock({ faults })`); none when absent. */
  readonly faults?: FaultSetting | undefined
}

export class MockConfig extends Context.Tag("@pc/mock-server/MockConfig")<MockConfig, MockConfigShape>() {}

export const defaults: MockConfigShape = {
  environment: "sandbox",
  host: "127.0.0.1",
  port: 4010,
  db: "",
  publicUrl: undefined,
  callbackBackoffMs: 15_000,
  callbackMaxAgeMs: 24 * 60 * 60 * 1000,
  callbackTimeoutMs: 10_000,
  callbackPollMs: 1_000,
  bodyLimitBytes: 64 * 1024,
  orderTtlMs: 30 * 60 * 1000,
  rateLimitPerMinute: undefined,
  devToken: undefined
}

/** The default database file of an environment, under `.pc-mock/` in the working directory. */
export const defaultDbFile = (environment: Environment.Environment): string => `.pc-mock/${environment}.sqlite`

/** A configuration the mock refuses to run with; `message` says which flag and why (exit code 2 on the command line). */
export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

/** Node's timers (and AbortSignal.timeout) fire at once past this many milliseconds. */
const MAX_TIMER_MS = 2 ** 31 - 1

const refuse = (message: string): never => {
  throw new ConfigError({ message })
}

/** A whole number in [min, max]; `name` is how the flag or field is called in the message. */
const checkInteger = (name: string, value: number, min: number, max: number = Number.MAX_SAFE_INTEGER) => {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    refuse(`${name} takes a whole number from ${min} to ${max}, not ${String(value)}`)
  }
}

/** The public URL, checked by the one URL rule (absolute http(s), no credentials, query or fragment), without trailing slashes. */
const checkPublicUrl = (value: string): string => {
  const checked = checkHttpUrl(value, "--public-url", { base: true })
  if (!checked.ok) refuse(checked.message)
  // A browser cannot open http://0.0.0.0:4010: the URLs handed out must name a reachable host.
  if (checked.ok && isWildcardHost(checked.url.hostname)) {
    refuse("--public-url must name a host a browser can reach, not the wildcard address")
  }
  return value.replace(/\/+$/, "")
}

/** The shortest developer token accepted: a guessable token would leave the menu open anyway. */
export const MIN_DEV_TOKEN_LENGTH = 16

const checkDevToken = (token: string): void => {
  // Printable ASCII without spaces: it travels in an Authorization header.
  if (!/^[\x21-\x7e]+$/.test(token)) refuse("--dev-token must be printable ASCII without spaces")
  if (token.length < MIN_DEV_TOKEN_LENGTH) {
    refuse(`--dev-token must be at least ${MIN_DEV_TOKEN_LENGTH} characters (try: openssl rand -hex 24)`)
  }
}

/**
 * Checks a whole configuration, whichever way it was made (flags, `pc mock`, a test's literal):
 * a known environment, a host, a port in 0..65535, positive timings and limits, an http(s) public
 * URL. Returns it with the public URL's trailing slashes removed; throws {@link ConfigError}.
 *
 * @example
 * ```ts
 * import { check, defaults } from "@pc/mock-server"
 *
 * check({ ...defaults, port: 0, db: ":memory:" }) // fine
 * check({ ...defaults, callbackBackoffMs: 0 }) // throws ConfigError
 * ```
 */
export const check = (config: MockConfigShape): MockConfigShape => {
  if (!Env.isEnvironment(config.environment)) {
    refuse(`--env must be sandbox, production or gray, not ${JSON.stringify(config.environment)}`)
  }
  if (typeof config.host !== "string" || config.host.trim() === "") refuse("--host must name an address to bind")
  if (typeof config.db !== "string") refuse("--db must be a file name, :memory: or a postgres:// URL")
  checkInteger("--port", config.port, 0, 65_535)
  checkInteger("--callback-backoff-ms", config.callbackBackoffMs, 1)
  checkInteger("callbackMaxAgeMs", config.callbackMaxAgeMs, 1)
  checkInteger("--callback-timeout-ms", config.callbackTimeoutMs, 1, MAX_TIMER_MS)
  checkInteger("callbackPollMs", config.callbackPollMs, 1, MAX_TIMER_MS)
  checkInteger("--order-ttl-ms", config.orderTtlMs, 1)
  checkInteger("--body-limit-bytes", config.bodyLimitBytes, 1)
  if (config.rateLimitPerMinute !== undefined) checkInteger("--rate-limit-per-minute", config.rateLimitPerMinute, 1)
  if (config.devToken !== undefined) {
    if (typeof config.devToken !== "string") refuse("--dev-token must be a string")
    checkDevToken(config.devToken)
  }
  return config.publicUrl === undefined ? config : { ...config, publicUrl: checkPublicUrl(config.publicUrl) }
}

/**
 * The address a server bound to `config.host` and `boundPort` answers on.
 *
 * @example
 * ```ts
 * listenUrl({ ...defaults, host: "::1" }, 4010) // "http://[::1]:4010"
 * ```
 */
export const listenUrl = (config: MockConfigShape, boundPort: number): string =>
  `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${boundPort}`

/**
 * The base of the absolute URLs the server hands out: the public URL, or where it listens. Bound to
 * the wildcard address (`0.0.0.0`, `::`), where it listens is no address a browser can open, so the
 * default is `http://127.0.0.1:<port>` (this machine; `--public-url` names another host).
 *
 * @example
 * ```ts
 * publicBaseUrl({ ...defaults, host: "0.0.0.0", publicUrl: undefined }, 4010) // "http://127.0.0.1:4010"
 * ```
 */
export const publicBaseUrl = (config: MockConfigShape, boundPort: number): string =>
  config.publicUrl ?? (isWildcardHost(config.host) ? `http://127.0.0.1:${boundPort}` : listenUrl(config, boundPort))
