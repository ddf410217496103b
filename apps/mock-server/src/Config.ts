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

export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

const USAGE =
  "usage: pc mock [--env sandbox|production|gray] [--host 127.0.0.1] [--port 4010] [--db FILE|:memory:] " +
  "[--public-url URL] [--callback-backoff-ms 15000] [--order-ttl-ms 1800000] [--body-limit-bytes 65536] " +
  "[--rate-limit-per-minute N]"

const integer = (flag: string, value: string, min: number): number => {
  if (!/^[0-9]+$/.test(value) || Number(value) < min) {
    throw new ConfigError({ message: `${flag} takes a whole number >= ${min}, not ${JSON.stringify(value)}\n${USAGE}` })
  }
  return Number(value)
}

/**
 * Parses the mock's flags (`--flag value` or `--flag=value`). Throws {@link ConfigError} with the
 * usage for anything unknown or malformed.
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
        config = { ...config, port: integer(flag, value, 0) }
        break
      case "--db":
        config = { ...config, db: value }
        dbGiven = true
        break
      case "--public-url":
        try {
          new URL(value)
        } catch {
          throw new ConfigError({ message: `--public-url must be an absolute URL, not ${JSON.stringify(value)}` })
        }
        config = { ...config, publicUrl: value.replace(/\/+$/, "") }
        break
      case "--callback-backoff-ms":
        config = { ...config, callbackBackoffMs: integer(flag, value, 1) }
        break
      case "--callback-timeout-ms":
        config = { ...config, callbackTimeoutMs: integer(flag, value, 1) }
        break
      case "--order-ttl-ms":
        config = { ...config, orderTtlMs: integer(flag, value, 1) }
        break
      case "--body-limit-bytes":
        config = { ...config, bodyLimitBytes: integer(flag, value, 1) }
        break
      case "--rate-limit-per-minute":
        config = { ...config, rateLimitPerMinute: integer(flag, value, 1) }
        break
      default:
        throw new ConfigError({ message: `unknown option ${flag}\n${USAGE}` })
    }
  }
  if (!dbGiven && config.db === "") config = { ...config, db: defaultDbFile(config.environment) }
  return config
}

/** The base of the absolute URLs the server hands out. */
export const publicBaseUrl = (config: MockConfigShape, boundPort: number): string =>
  config.publicUrl ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${boundPort}`
