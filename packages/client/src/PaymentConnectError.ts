/**
 * The error classes of the Promise facade, re-exported by `Promise` (`@pc/client/promise`): one
 * class per Effect error, with a literal `code` to switch on and the useful fields of its Effect
 * counterpart.
 *
 * @since 0.1.0
 */
import type { Environment } from "@pc/core"
import * as Duration from "effect/Duration"
import * as PaymentClientError from "./PaymentClientError.js"
import type {
  CallbackVerificationErrorReason,
  CallbackVerificationError as EffectCallbackVerificationError
} from "./CallbackVerificationError.js"

/**
 * The stable codes of {@link PaymentConnectError}, one per error class.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * const code: PaymentConnect.PaymentConnectErrorCode = "ERR_PC_SIGNATURE_REJECTED"
 * ```
 */
export type PaymentConnectErrorCode =
  | "ERR_PC_SIGNATURE_REJECTED"
  | "ERR_PC_INVALID_REQUEST"
  | "ERR_PC_DUPLICATE_ORDER"
  | "ERR_PC_RATE_LIMITED"
  | "ERR_PC_SERVER_ERROR"
  | "ERR_PC_TRANSPORT"
  | "ERR_PC_TIMEOUT"
  | "ERR_PC_UNEXPECTED_RESPONSE"
  | "ERR_PC_CONFIGURATION"
  | "ERR_PC_CALLBACK_VERIFICATION"

/**
 * The base class of every error the Promise client throws: `code` is stable to switch on, the
 * message names the cause and never contains keys or signatures, `cause` is the Effect error.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * try {
 *   await client.createOrder({ orderId: "M-1", amount: "10.00", currency: "USD" })
 * } catch (error) {
 *   if (error instanceof PaymentConnect.PaymentConnectError) console.error(error.code, error.message)
 * }
 * ```
 */
export class PaymentConnectError<Code extends PaymentConnectErrorCode = PaymentConnectErrorCode> extends Error {
  /**
   * Whether the same call may succeed later unchanged: true for rate limits, server errors,
   * transport errors, timeouts and 408/429/5xx answers that were not the service's envelope;
   * false for refusals that would fail the same way again (signature, invalid request, duplicate
   * order, configuration, a refused callback). The client has already retried within its policy.
   */
  readonly retryable: boolean
  constructor(
    readonly code: Code,
    message: string,
    options?: { readonly cause?: unknown; readonly retryable?: boolean }
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.retryable = options?.retryable ?? false
  }
}

/**
 * The service refused the signature (`signError`); never retried. `hint` names the likely cause,
 * `localClockAheadMs` is `local now - server Date` when known (positive: this machine's clock runs ahead).
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.SignatureRejectedError) console.error(error.hint)
 * ```
 */
export class SignatureRejectedError extends PaymentConnectError<"ERR_PC_SIGNATURE_REJECTED"> {
  readonly serverMessage: string
  readonly keyVersion: number
  readonly localClockAheadMs: number | undefined
  readonly hint: string | undefined
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.SignatureRejected) {
    super("ERR_PC_SIGNATURE_REJECTED", error.message, {
      cause: error,
      retryable: PaymentClientError.isRetryable(error)
    })
    this.serverMessage = error.serverMessage
    this.keyVersion = error.keyVersion
    this.localClockAheadMs = error.localClockAheadMs
    this.hint = error.hint
    this.requestId = error.requestId
  }
}

/**
 * The request is invalid, found locally (`source: "local"`, before any network call) or by the
 * service (`paramError` and friends); `field` names the field when known. Never retried.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.InvalidRequestError) console.error(error.field)
 * ```
 */
export class InvalidRequestError extends PaymentConnectError<"ERR_PC_INVALID_REQUEST"> {
  readonly source: "local" | "server"
  readonly field: string | undefined
  readonly serverCode: PaymentClientError.InvalidRequestCode
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.InvalidRequest) {
    super("ERR_PC_INVALID_REQUEST", error.message, { cause: error, retryable: PaymentClientError.isRetryable(error) })
    this.source = error.source
    this.field = error.field
    this.serverCode = error.code
    this.requestId = error.requestId
  }
}

/**
 * The orderId was already used with a different amount or currency (`duplicateOrder`). `amount`
 * and `currency` are what this call asked for. The service answers with nothing of the existing
 * order and has no order query: create it again with the amount and currency you stored for it
 * and the service returns it (same `orderSn` and `h5Url`).
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.DuplicateOrderError) console.error(error.orderId)
 * ```
 */
export class DuplicateOrderError extends PaymentConnectError<"ERR_PC_DUPLICATE_ORDER"> {
  readonly orderId: string
  /** The canonical amount this call asked for (`"12.00"`). */
  readonly amount: string
  /** The currency this call asked for. */
  readonly currency: string
  readonly serverMessage: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.DuplicateOrder) {
    super("ERR_PC_DUPLICATE_ORDER", error.message, { cause: error, retryable: PaymentClientError.isRetryable(error) })
    this.orderId = error.orderId
    this.amount = error.amount
    this.currency = error.currency
    this.serverMessage = error.serverMessage
    this.requestId = error.requestId
  }
}

/**
 * Still rate limited (`rateLimited`) after the retries; `retryAfterMs` from the server's `Retry-After`.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.RateLimitedError) setTimeout(retry, error.retryAfterMs ?? 1000)
 * ```
 */
export class RateLimitedError extends PaymentConnectError<"ERR_PC_RATE_LIMITED"> {
  readonly retryAfterMs: number | undefined
  readonly serverMessage: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.RateLimited) {
    super("ERR_PC_RATE_LIMITED", error.message, { cause: error, retryable: PaymentClientError.isRetryable(error) })
    this.retryAfterMs = error.retryAfter === undefined ? undefined : Duration.toMillis(error.retryAfter)
    this.serverMessage = error.serverMessage
    this.requestId = error.requestId
  }
}

/**
 * The service failed (`internalError`, `serviceUnavailable` or a 5xx envelope) after the retries. `serverCode` is the
 * envelope's code (`code` is this class's stable `ERR_PC_SERVER_ERROR`).
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.ServerError) console.error(error.status, error.serverCode, error.requestId)
 * ```
 */
export class ServerError extends PaymentConnectError<"ERR_PC_SERVER_ERROR"> {
  readonly status: number
  readonly serverCode: string
  readonly serverMessage: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.ServerError) {
    super("ERR_PC_SERVER_ERROR", error.message, { cause: error, retryable: PaymentClientError.isRetryable(error) })
    this.status = error.status
    this.serverCode = error.code
    this.serverMessage = error.serverMessage
    this.requestId = error.requestId
  }
}

/**
 * The service could not be reached, or its answer not read, after the retries.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.TransportError) console.error(error.message)
 * ```
 */
export class TransportError extends PaymentConnectError<"ERR_PC_TRANSPORT"> {
  /** Attempts made in all, the first included. */
  readonly attempts: number
  /** From the first attempt to giving up, in milliseconds. */
  readonly elapsedMs: number
  constructor(error: PaymentClientError.TransportError) {
    super("ERR_PC_TRANSPORT", error.message, { cause: error, retryable: PaymentClientError.isRetryable(error) })
    this.attempts = error.attempts ?? 1
    this.elapsedMs = error.elapsedMs ?? 0
  }
}

/**
 * No answer in time: an attempt's timeout after the retries (`scope: "attempt"`), or the retry
 * deadline; `timeoutMs` is the time that ran out.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.TimeoutError) console.error(error.scope, error.timeoutMs)
 * ```
 */
export class TimeoutError extends PaymentConnectError<"ERR_PC_TIMEOUT"> {
  readonly scope: "attempt" | "deadline"
  readonly timeoutMs: number
  /** Attempts made in all, the first included. */
  readonly attempts: number
  /** From the first attempt to giving up, in milliseconds. */
  readonly elapsedMs: number
  constructor(error: PaymentClientError.Timeout) {
    super("ERR_PC_TIMEOUT", error.message, { cause: error, retryable: PaymentClientError.isRetryable(error) })
    this.scope = error.scope
    this.timeoutMs = Duration.toMillis(error.timeout)
    this.attempts = error.attempts ?? 1
    this.elapsedMs = error.elapsedMs ?? 0
  }
}

/**
 * The answer is not the service's envelope (e.g. a proxy's HTML page); `excerpt` holds at most 200
 * characters, long Base64 runs redacted.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.UnexpectedResponseError) console.error(error.status, error.excerpt)
 * ```
 */
export class UnexpectedResponseError extends PaymentConnectError<"ERR_PC_UNEXPECTED_RESPONSE"> {
  readonly status: number
  readonly contentType: string | undefined
  readonly excerpt: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.UnexpectedResponse) {
    super("ERR_PC_UNEXPECTED_RESPONSE", error.message, {
      cause: error,
      retryable: PaymentClientError.isRetryable(error)
    })
    this.status = error.status
    this.contentType = error.contentType
    this.excerpt = error.excerpt
    this.requestId = error.requestId
  }
}

/**
 * The client or verifier is misconfigured: a bad option, a bad or weak key, an unknown key version.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.ConfigurationError && error.reason === "WeakKey") process.exit(1)
 * ```
 */
export class ConfigurationError extends PaymentConnectError<"ERR_PC_CONFIGURATION"> {
  readonly reason: PaymentClientError.ConfigurationErrorReason
  readonly option: string | undefined
  constructor(error: PaymentClientError.ConfigurationError) {
    super("ERR_PC_CONFIGURATION", error.message, { cause: error, retryable: PaymentClientError.isRetryable(error) })
    this.reason = error.reason
    this.option = error.option
  }
}

/**
 * A refused callback; `reason` tells which check refused it (see `Callback.CallbackVerificationErrorReason`),
 * `header` the header at fault, `localClockAheadMs` (`local now - X-R-Ts`) the skew of a `StaleTimestamp`.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.CallbackVerificationError) console.warn(error.reason)
 * ```
 */
export class CallbackVerificationError extends PaymentConnectError<"ERR_PC_CALLBACK_VERIFICATION"> {
  readonly reason: CallbackVerificationErrorReason
  readonly environment: Environment.Environment
  readonly header: string | undefined
  readonly keyVersion: number | undefined
  readonly localClockAheadMs: number | undefined
  constructor(error: EffectCallbackVerificationError) {
    super("ERR_PC_CALLBACK_VERIFICATION", error.message, { cause: error })
    this.reason = error.reason
    this.environment = error.environment
    this.header = error.header
    this.keyVersion = error.keyVersion
    this.localClockAheadMs = error.localClockAheadMs
  }
}

/**
 * Every error the Promise client throws, as a union discriminated by `code`: narrow an unknown
 * error with {@link isPaymentConnectError}, then `switch (error.code)` gives each case its class.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * const wait = (error: PaymentConnect.AnyPaymentConnectError) =>
 *   error.code === "ERR_PC_RATE_LIMITED" ? error.retryAfterMs : undefined
 * ```
 */
export type AnyPaymentConnectError =
  | SignatureRejectedError
  | InvalidRequestError
  | DuplicateOrderError
  | RateLimitedError
  | ServerError
  | TransportError
  | TimeoutError
  | UnexpectedResponseError
  | ConfigurationError
  | CallbackVerificationError

/**
 * Whether `u` is one of the Promise client's errors; narrows to {@link AnyPaymentConnectError}, so
 * that `switch (error.code)` narrows each case to its class.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * try {
 *   await client.createOrder(input)
 * } catch (error) {
 *   if (!PaymentConnect.isPaymentConnectError(error)) throw error
 *   switch (error.code) {
 *     case "ERR_PC_RATE_LIMITED":
 *       return retryLater(error.retryAfterMs)
 *     case "ERR_PC_DUPLICATE_ORDER":
 *       return showExisting(error.orderId)
 *   }
 * }
 * ```
 */
export const isPaymentConnectError = (u: unknown): u is AnyPaymentConnectError => u instanceof PaymentConnectError
