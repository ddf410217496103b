/**
 * The error classes of the Promise facade, re-exported by `Promise` (`@pc/client/promise`): one
 * class per Effect error, with a literal `code` to switch on and the useful fields of its Effect
 * counterpart.
 *
 * @since 0.1.0
 */
import type { Environment } from "@pc/core"
import * as Duration from "effect/Duration"
import type * as PaymentClientError from "./PaymentClientError.js"
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
export class PaymentConnectError extends Error {
  constructor(
    readonly code: PaymentConnectErrorCode,
    message: string,
    options?: { readonly cause?: unknown }
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
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
export class SignatureRejectedError extends PaymentConnectError {
  readonly serverMessage: string
  readonly keyVersion: number
  readonly localClockAheadMs: number | undefined
  readonly hint: string | undefined
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.SignatureRejected) {
    super("ERR_PC_SIGNATURE_REJECTED", error.message, { cause: error })
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
export class InvalidRequestError extends PaymentConnectError {
  readonly source: "local" | "server"
  readonly field: string | undefined
  readonly serverCode: PaymentClientError.InvalidRequestCode
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.InvalidRequest) {
    super("ERR_PC_INVALID_REQUEST", error.message, { cause: error })
    this.source = error.source
    this.field = error.field
    this.serverCode = error.code
    this.requestId = error.requestId
  }
}

/**
 * The orderId was already used with a different amount or currency (`duplicateOrder`).
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.DuplicateOrderError) console.error(error.orderId)
 * ```
 */
export class DuplicateOrderError extends PaymentConnectError {
  readonly orderId: string
  readonly serverMessage: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.DuplicateOrder) {
    super("ERR_PC_DUPLICATE_ORDER", error.message, { cause: error })
    this.orderId = error.orderId
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
export class RateLimitedError extends PaymentConnectError {
  readonly retryAfterMs: number | undefined
  readonly serverMessage: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.RateLimited) {
    super("ERR_PC_RATE_LIMITED", error.message, { cause: error })
    this.retryAfterMs = error.retryAfter === undefined ? undefined : Duration.toMillis(error.retryAfter)
    this.serverMessage = error.serverMessage
    this.requestId = error.requestId
  }
}

/**
 * The service failed (`internalError` or a 5xx envelope) after the retries. `serverCode` is the
 * envelope's code (`code` is this class's stable `ERR_PC_SERVER_ERROR`).
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.ServerError) console.error(error.status, error.serverCode, error.requestId)
 * ```
 */
export class ServerError extends PaymentConnectError {
  readonly status: number
  readonly serverCode: string
  readonly serverMessage: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.ServerError) {
    super("ERR_PC_SERVER_ERROR", error.message, { cause: error })
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
export class TransportError extends PaymentConnectError {
  constructor(error: PaymentClientError.TransportError) {
    super("ERR_PC_TRANSPORT", error.message, { cause: error })
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
export class TimeoutError extends PaymentConnectError {
  readonly scope: "attempt" | "deadline"
  readonly timeoutMs: number
  constructor(error: PaymentClientError.Timeout) {
    super("ERR_PC_TIMEOUT", error.message, { cause: error })
    this.scope = error.scope
    this.timeoutMs = Duration.toMillis(error.timeout)
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
export class UnexpectedResponseError extends PaymentConnectError {
  readonly status: number
  readonly contentType: string | undefined
  readonly excerpt: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.UnexpectedResponse) {
    super("ERR_PC_UNEXPECTED_RESPONSE", error.message, { cause: error })
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
export class ConfigurationError extends PaymentConnectError {
  readonly reason: PaymentClientError.ConfigurationErrorReason
  readonly option: string | undefined
  constructor(error: PaymentClientError.ConfigurationError) {
    super("ERR_PC_CONFIGURATION", error.message, { cause: error })
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
export class CallbackVerificationError extends PaymentConnectError {
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
