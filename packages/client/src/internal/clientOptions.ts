// Checks the client's options once, at construction, into the plain settings the call path reads.
import { Environment, Headers } from "@pc/core"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { CommonOptions, RetryPolicy } from "../PaymentClient.js"
import { ConfigurationError } from "../PaymentClientError.js"

export const invalidOption = (option: string, message: string) =>
  new ConfigurationError({ message: `invalid option ${option}: ${message}`, reason: "InvalidOption", option })

export const positiveDuration = (option: string, input: unknown): Either.Either<number, ConfigurationError> => {
  const decoded = Duration.decodeUnknown(input)
  if (Option.isNone(decoded) || !Duration.isFinite(decoded.value) || Duration.toMillis(decoded.value) <= 0) {
    return Either.left(invalidOption(option, 'expected a positive, finite duration such as 10000 or "10 seconds"'))
  }
  return Either.right(Duration.toMillis(decoded.value))
}

export interface Settings {
  readonly environment: Environment.Environment
  readonly baseUrl: string
  readonly appKey: string
  readonly timeoutMs: number
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly deadlineMs: number
  readonly jitter: boolean
}

export const settingsOf = (
  options: CommonOptions,
  defaults: { readonly retry: RetryPolicy; readonly timeout: Duration.DurationInput }
): Either.Either<Settings, ConfigurationError> =>
  Either.gen(function* () {
    if (!Environment.isEnvironment(options.environment)) {
      return yield* Either.left(invalidOption("environment", 'expected "sandbox", "production" or "gray"'))
    }
    let url: URL
    try {
      url = new URL(options.baseUrl)
    } catch {
      return yield* Either.left(invalidOption("baseUrl", `${JSON.stringify(options.baseUrl)} is not an absolute URL`))
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return yield* Either.left(invalidOption("baseUrl", "expected an http: or https: URL"))
    }
    if (url.search !== "" || url.hash !== "") {
      return yield* Either.left(invalidOption("baseUrl", "expected no query string or fragment"))
    }
    if (url.pathname !== "/") {
      return yield* Either.left(
        invalidOption(
          "baseUrl",
          `expected scheme, host and port only (such as https://api.example.com), not the path ${JSON.stringify(url.pathname)}: ` +
            "the signature covers the API path as sent (/openapi/v2/...), so a gateway prefix in the base URL " +
            "cannot be signed and the service would refuse every request"
        )
      )
    }
    if (url.username !== "" || url.password !== "") {
      // Never echo them: they are credentials.
      return yield* Either.left(
        invalidOption(
          "baseUrl",
          "expected no user info (user:password@): it would be dropped, not sent; add an Authorization header in transformClient"
        )
      )
    }
    if (typeof options.appKey !== "string" || !Headers.isAppKey(options.appKey)) {
      return yield* Either.left(invalidOption("appKey", "the appKey is the UUID issued by the merchant platform"))
    }
    // `{ ...defaults, ...retry }` would let `{ maxAttempts: undefined }` (a spread of an optional
    // setting) erase the default: only the fields actually given override it.
    const given = Object.entries(options.retry ?? {}).filter(([, value]) => value !== undefined)
    const policy: RetryPolicy = { ...defaults.retry, ...Object.fromEntries(given) }
    if (!Number.isSafeInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
      return yield* Either.left(invalidOption("retry.maxAttempts", "expected a whole number >= 1"))
    }
    if (typeof policy.jitter !== "boolean") {
      return yield* Either.left(invalidOption("retry.jitter", "expected true or false"))
    }
    return {
      environment: options.environment,
      baseUrl: url.origin,
      appKey: options.appKey,
      timeoutMs: yield* positiveDuration("timeout", options.timeout ?? defaults.timeout),
      maxAttempts: policy.maxAttempts,
      baseDelayMs: yield* positiveDuration("retry.baseDelay", policy.baseDelay),
      maxDelayMs: yield* positiveDuration("retry.maxDelay", policy.maxDelay),
      deadlineMs: yield* positiveDuration("retry.deadline", policy.deadline),
      jitter: policy.jitter
    }
  })
