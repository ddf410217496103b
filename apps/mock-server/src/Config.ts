/**
 * How one mock server process runs: its environment, where it listens, where it keeps its data,
 * and the timings of callbacks and orders. Parsed from the flags of CONTRACT.md "Running the mock".
 */
import type { Environment } from "@pc/core"
import { Environment as Env } from "@pc/core"
import { Context, Data } from "effect"

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
  /** Request bodies over this many bytes get payloadTooLarge. */
  readonly bodyLimitBytes: number
  /** Orders still CREATED this long after creation expire. */
  readonly orderTtlMs: number
  /** Create-order requests per appKey per minute; undefined means no limit. */
  readonly rateLimitPerMinute: number | undefined
}

export class MockConfig extends Context.Tag("mock-server/MockConfig")<MockConfig, MockConfigShape>() {}

export const defaults: MockConfigShape = {
  environment: "sandbox",
  host: "127.0.0.1",
  port: 4010,
  db: "",
  publicUrl: undefined,
  callbackBackoffMs: 15_000,
  callbackMaxAgeMs: 24 * 60 * 60 * 1000,
  callbackTimeoutMs: 10_000,
  bodyLimitBytes: 64 * 1024,
  orderTtlMs: 30 * 60 * 1000,
  rateLimitPerMinute: undefined
}

/** The default database file of an environment, under `.pc-mock/` in the working directory. */
export const defaultDbFile = (environment: Environment.Environment): string => `.pc-mock/${environment}.sqlite`

/** A configuration the mock refuses to run with; `message` says which flag and why (exit code 2 on the command line). */
export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

const USAGE =
  "usage: pc mock [--env sandbox|production|gray] [--host 127.0.0.1] [--port 4010] [--db FILE|:memory:] " +
  "[--public-url URL] [--callback-backoff-ms 15000] [--callback-timeout-ms 10000] [--order-ttl-ms 1800000] " +
  "[--body-limit-bytes 65536] [--rate-limit-per-minute N]"

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

/** The public URL, checked (absolute http(s), no credentials, query or fragment) and without trailing slashes. */
const checkPublicUrl = (value: string): string => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return refuse(`--public-url must be an absolute http(s) URL, not ${JSON.stringify(value)}`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    refuse(`--public-url must be an http or https URL, not ${JSON.stringify(value)}`)
  }
  if (url.username !== "" || url.password !== "") refuse("--public-url must not carry a user name or password")
  if (url.search !== "" || url.hash !== "") refuse("--public-url must not have a query or a fragment")
  return value.replace(/\/+$/, "")
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
  checkInteger("--order-ttl-ms", config.orderTtlMs, 1)
  checkInteger("--body-limit-bytes", config.bodyLimitBytes, 1)
  if (config.rateLimitPerMinute !== undefined) checkInteger("--rate-limit-per-minute", config.rateLimitPerMinute, 1)
  return config.publicUrl === undefined ? config : { ...config, publicUrl: checkPublicUrl(config.publicUrl) }
}

const integer = (flag: string, value: string): number => {
  if (!/^[0-9]+$/.test(value)) {
    refuse(`${flag} takes a whole number, not ${JSON.stringify(value)}\n${USAGE}`)
  }
  return Number(value)
}

/**
 * Parses the mock's flags (`--flag value` or `--flag=value`) and {@link check}s the result. Throws
 * {@link ConfigError} with the usage for anything unknown or malformed.
 *
 * @example
 * ```ts
 * import { fromArgs } from "@pc/mock-server"
 *
 * fromArgs(["--env", "production", "--port", "0", "--db", ":memory:"]).environment // "production"
 * ```
 */
export const fromArgs = (argv: ReadonlyArray<string>, base: MockConfigShape = defaults): MockConfigShape => {
  let config: { -readonly [K in keyof MockConfigShape]: MockConfigShape[K] } = { ...base }
  let dbGiven = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") continue
    if (arg === "--help" || arg === "-h") throw new ConfigError({ message: USAGE })
    const eq = arg.indexOf("=")
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined) throw new ConfigError({ message: `${flag} needs a value\n${USAGE}` })
    switch (flag) {
      case "--env":
        if (!Env.isEnvironment(value)) {
          throw new ConfigError({ message: `--env must be sandbox, production or gray, not ${JSON.stringify(value)}` })
        }
        config = { ...config, environment: value }
        break
      case "--host":
        config = { ...config, host: value }
        break
      case "--port":
        config = { ...config, port: integer(flag, value) }
        break
      case "--db":
        config = { ...config, db: value }
        dbGiven = true
        break
      case "--public-url":
        config = { ...config, publicUrl: value }
        break
      case "--callback-backoff-ms":
        config = { ...config, callbackBackoffMs: integer(flag, value) }
        break
      case "--callback-timeout-ms":
        config = { ...config, callbackTimeoutMs: integer(flag, value) }
        break
      case "--order-ttl-ms":
        config = { ...config, orderTtlMs: integer(flag, value) }
        break
      case "--body-limit-bytes":
        config = { ...config, bodyLimitBytes: integer(flag, value) }
        break
      case "--rate-limit-per-minute":
        config = { ...config, rateLimitPerMinute: integer(flag, value) }
        break
      default:
        throw new ConfigError({ message: `unknown option ${flag}\n${USAGE}` })
    }
  }
  if (!dbGiven && config.db === "") config = { ...config, db: defaultDbFile(config.environment) }
  return check(config)
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

/** The base of the absolute URLs the server hands out: the public URL, or where it listens. */
export const publicBaseUrl = (config: MockConfigShape, boundPort: number): string =>
  config.publicUrl ?? listenUrl(config, boundPort)
