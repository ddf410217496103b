/**
 * The typed errors of the payment client: one tagged class per way a call can fail, and their
 * union {@link PaymentClientError}. The envelope's `code` decides which one, never the HTTP status
 * alone; messages never contain private keys, and long Base64 runs (a signature echoed by a proxy's
 * error page) are redacted from everything the server sent.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Data from "effect/Data"
import * as Predicate from "effect/Predicate"

/**
 * The service refused the request's signature (`signError`): wrong key, wrong key version, wrong
 * appKey, a body changed after signing, or a clock outside the 5 minute window. Never retried:
 * the same request would be refused again.
 *
 * `localClockAheadMs` is `local now - server Date header` when the response carried a `Date`;
 * `hint` names the likely cause (for example the clock skew when it is past the window).
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.createOrder({ orderId: "M-1", amount: "10.00", currency: "USD" }).pipe(
 *   Effect.catchTag("SignatureRejected", (e) => Effect.logError(e.message, e.hint))
 * )
 * ```
 */
export class SignatureRejected extends Data.TaggedError("SignatureRejected")<{
  readonly message: string
  /** The service's `msg`, e.g. `signature verification failed: timestamp outside the 5 minute window`. */
  readonly serverMessage: string
  readonly status: number
  /** The key version the request was signed with (`X-R-KEY-VERSION`). */
  readonly keyVersion: number
  /**
   * `local now - Date header` in milliseconds, when the response had a `Date` header: positive
   * when this machine's clock runs ahead of the server's. The same convention as
   * `CallbackVerificationError.localClockAheadMs`.
   */
  readonly localClockAheadMs: number | undefined
  /** The likely cause and what to do about it. */
  readonly hint: string | undefined
  readonly requestId: string | undefined
}> {}

/**
 * The codes that mean "this request is wrong": `paramError` (a field is missing or invalid) and the
 * transport-level refusals `unsupportedMediaType`, `payloadTooLarge`, `notFound`, `methodNotAllowed`.
 *
 * @example
 * ```ts
 * import type { PaymentClientError } from "@pc/client"
 *
 * const code: PaymentClientError.InvalidRequestCode = "paramError"
 * ```
 */
export type InvalidRequestCode =
  | "paramError"
  | "unsupportedMediaType"
  | "payloadTooLarge"
  | "notFound"
  | "methodNotAllowed"

/**
 * The request is invalid: found locally before any network call (`source: "local"`, e.g. an amount
 * with too many decimals), or refused by the service (`source: "server"`). `field` names the field
 * when known. Never retried.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.createOrder({ orderId: "M-1", amount: "10.001", currency: "USD" }).pipe(
 *   Effect.catchTag("InvalidRequest", (e) => Effect.log(e.field, e.message)) // "amount"
 * )
 * ```
 */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly message: string
  readonly source: "local" | "server"
  readonly code: InvalidRequestCode
  /** The offending field (`orderId`, `amount`, `currency`, ...) when known. */
  readonly field: string | undefined
  readonly serverMessage: string | undefined
  readonly status: number | undefined
  readonly requestId: string | undefined
}> {}

/**
 * The orderId was already used with a different amount or currency (`duplicateOrder`). The same
 * orderId with the same amount and currency is not an error: the service returns the first order.
 * Never retried. `amount` and `currency` are what this call asked for; the service's answer
 * carries nothing of the existing order, and its API has no order query: to get the existing
 * order back, create it again with the amount and currency you stored for it (the service returns
 * the first order, same `orderSn` and `h5Url`).
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.createOrder(input).pipe(Effect.catchTag("DuplicateOrder", (e) => Effect.log(e.orderId)))
 * ```
 */
export class DuplicateOrder extends Data.TaggedError("DuplicateOrder")<{
  readonly message: string
  readonly orderId: string
  /** The canonical amount this call asked for (`"12.00"`), which the existing order does not have, or not with `currency`. */
  readonly amount: string
  readonly currency: string
  readonly serverMessage: string
  readonly status: number
  readonly requestId: string | undefined
}> {}

/**
 * Over the service's rate limit (`rateLimited`), after the retries the policy allows. `retryAfter`
 * is the server's `Retry-After` (seconds or an HTTP date) when it sent one.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.createOrder(input).pipe(Effect.catchTag("RateLimited", (e) => Effect.log(e.retryAfter)))
 * ```
 */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly message: string
  readonly retryAfter: Duration.Duration | undefined
  readonly serverMessage: string
  readonly status: number
  readonly requestId: string | undefined
}> {}

/**
 * The service failed (`internalError`, `serviceUnavailable`, or an envelope with an unknown code on
 * a 5xx), after the retries the policy allows (each after at least the server's `Retry-After`).
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.createOrder(input).pipe(Effect.catchTag("ServerError", (e) => Effect.log(e.requestId)))
 * ```
 */
export class ServerError extends Data.TaggedError("ServerError")<{
  readonly message: string
  readonly code: string
  readonly serverMessage: string
  readonly status: number
  readonly requestId: string | undefined
}> {}

/**
 * The request did not reach the service or its answer could not be read (connection refused,
 * reset, DNS, TLS), after the retries the policy allows. `cause` is the runtime's own error.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.createOrder(input).pipe(Effect.catchTag("TransportError", (e) => Effect.log(e.message)))
 * ```
 */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly message: string
  readonly cause: unknown
  /** Attempts made in all, the first included; set by `createOrder` when it gives up. */
  readonly attempts?: number | undefined
  /** From the first attempt to giving up, in milliseconds; set by `createOrder` when it gives up. */
  readonly elapsedMs?: number | undefined
}> {}

/**
 * No answer in time: one attempt ran past the per-attempt `timeout` (`scope: "attempt"`, after the
 * retries the policy allows), or the whole call ran past the retry `deadline` (`scope: "deadline"`).
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.createOrder(input).pipe(Effect.catchTag("Timeout", (e) => Effect.log(e.scope)))
 * ```
 */
export class Timeout extends Data.TaggedError("Timeout")<{
  readonly message: string
  readonly scope: "attempt" | "deadline"
  readonly timeout: Duration.Duration
  /** Attempts made in all, the first included; set by `createOrder` when it gives up. */
  readonly attempts?: number | undefined
  /** From the first attempt to giving up, in milliseconds; set by `createOrder` when it gives up. */
  readonly elapsedMs?: number | undefined
}> {}

/**
 * The answer is not the service's envelope (an HTML error page of a proxy, an empty body, a
 * `SUCCESS` without a create-order result, an unknown code). `excerpt` holds at most 200 characters
 * of the body. A 5xx, 408 or 429 of this kind is retried first (gateways answer like this while the
 * service restarts); anything else is not.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.createOrder(input).pipe(Effect.catchTag("UnexpectedResponse", (e) => Effect.log(e.status, e.excerpt)))
 * ```
 */
export class UnexpectedResponse extends Data.TaggedError("UnexpectedResponse")<{
  readonly message: string
  readonly status: number
  readonly contentType: string | undefined
  /** At most 200 characters of the body, whitespace collapsed, runs of 100+ Base64 characters as `[redacted base64]`. */
  readonly excerpt: string
  readonly requestId: string | undefined
}> {}

/**
 * Why a client or callback verifier could not be configured.
 *
 * @example
 * ```ts
 * import type { PaymentClientError } from "@pc/client"
 *
 * const reason: PaymentClientError.ConfigurationErrorReason = "WeakKey"
 * ```
 */
export type ConfigurationErrorReason =
  /** An option has a wrong value: environment, base URL, appKey, timeout, retry policy. */
  | "InvalidOption"
  /** A key that cannot be used: not PEM, not RSA, encrypted, a public key where a private one is needed, or a signer that failed. */
  | "BadKey"
  /** An RSA key under 2048 bits. */
  | "WeakKey"
  /** The current key version is not in the ring, or no key is configured for a version or environment. */
  | "UnknownKeyVersion"

/**
 * The client or callback verifier is misconfigured: found when it is made, before any request.
 * `option` names the option; the message never contains key material.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * PaymentClient.make(options).pipe(Effect.catchTag("ConfigurationError", (e) => Effect.die(e.message)))
 * ```
 */
export class ConfigurationError extends Data.TaggedError("ConfigurationError")<{
  readonly message: string
  readonly reason: ConfigurationErrorReason
  readonly option: string | undefined
}> {}

/**
 * Every way `createOrder` (and the client's construction) can fail.
 *
 * @example
 * ```ts
 * import type { PaymentClientError } from "@pc/client"
 *
 * const describe = (e: PaymentClientError.PaymentClientError): string => `${e._tag}: ${e.message}`
 * ```
 */
export type PaymentClientError =
  | SignatureRejected
  | InvalidRequest
  | DuplicateOrder
  | RateLimited
  | ServerError
  | TransportError
  | Timeout
  | UnexpectedResponse
  | ConfigurationError

const tags: ReadonlySet<string> = new Set([
  "SignatureRejected",
  "InvalidRequest",
  "DuplicateOrder",
  "RateLimited",
  "ServerError",
  "TransportError",
  "Timeout",
  "UnexpectedResponse",
  "ConfigurationError"
])

/**
 * Tells whether a value is one of the {@link PaymentClientError} classes.
 *
 * @example
 * ```ts
 * import { PaymentClientError } from "@pc/client"
 *
 * PaymentClientError.isPaymentClientError(new PaymentClientError.TransportError({ message: "reset", cause: null })) // true
 * ```
 */
export const isPaymentClientError = (u: unknown): u is PaymentClientError =>
  u instanceof Error && Predicate.hasProperty(u, "_tag") && typeof u._tag === "string" && tags.has(u._tag)

/**
 * Whether the client retries after this error: transport errors, timeouts, server errors, rate
 * limits, and non-envelope 5xx/408/429 answers. Signature, request and duplicate errors never.
 *
 * @example
 * ```ts
 * import { PaymentClientError } from "@pc/client"
 *
 * PaymentClientError.isRetryable(new PaymentClientError.TransportError({ message: "reset", cause: null })) // true
 * ```
 */
export const isRetryable = (error: PaymentClientError): boolean => {
  switch (error._tag) {
    case "TransportError":
    case "Timeout":
    case "ServerError":
    case "RateLimited":
      return true
    case "UnexpectedResponse":
      return error.status === 408 || error.status === 429 || error.status >= 500
    default:
      return false
  }
}
