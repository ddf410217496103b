/**
 * The envelope's result codes and the HTTP status of each (spec 7 and the project contract).
 * Clients decide on the code, never on the HTTP status alone.
 *
 * @since 0.1.0
 */

/**
 * Every result code with its HTTP status.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 *
 * ErrorCode.httpStatusByCode.signError // 401
 * ErrorCode.httpStatusByCode.rateLimited // 429
 * ```
 */
export const httpStatusByCode = {
  SUCCESS: 200,
  paramError: 400,
  signError: 401,
  notFound: 404,
  methodNotAllowed: 405,
  duplicateOrder: 409,
  payloadTooLarge: 413,
  unsupportedMediaType: 415,
  rateLimited: 429,
  unauthorized: 401,
  serviceUnavailable: 503,
  internalError: 500
} as const

/**
 * Any code an envelope can carry.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 *
 * const code: ErrorCode.ResultCode = "SUCCESS"
 * ErrorCode.httpStatus(code) // 200
 * ```
 */
export type ResultCode = keyof typeof httpStatusByCode

/**
 * A code that means the request failed: any {@link ResultCode} but `SUCCESS`.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 *
 * const describe = (code: ErrorCode.ErrorCode, msg: string | null): string =>
 *   `${code} (HTTP ${ErrorCode.httpStatus(code)})${msg === null ? "" : `: ${msg}`}`
 * describe("duplicateOrder", "orderId M-1001 already exists") // "duplicateOrder (HTTP 409): orderId M-1001 already exists"
 * ```
 */
export type ErrorCode = Exclude<ResultCode, "SUCCESS">

/**
 * Every result code, in a stable order.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 * import { Schema } from "effect"
 *
 * const Code = Schema.Literal(...ErrorCode.resultCodes)
 * Schema.is(Code)("notFound") // true
 * ```
 */
export const resultCodes = Object.keys(httpStatusByCode) as ReadonlyArray<ResultCode>

/**
 * Every error code, in a stable order.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 *
 * for (const code of ErrorCode.errorCodes) console.log(code, ErrorCode.httpStatus(code))
 * // paramError 400, signError 401, notFound 404, ..., internalError 500
 * ```
 */
export const errorCodes = resultCodes.filter((code): code is ErrorCode => code !== "SUCCESS")

/**
 * `msg` of every `signError` starts with this, then `: ` and the cause.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 *
 * const msg = "signature verification failed: timestamp outside the 5 minute window"
 * msg.startsWith(`${ErrorCode.SIGN_ERROR_PREFIX}: `) ? msg.slice(ErrorCode.SIGN_ERROR_PREFIX.length + 2) : msg
 * // "timestamp outside the 5 minute window"
 * ```
 */
export const SIGN_ERROR_PREFIX = "signature verification failed"

/**
 * Tells whether a string is a known result code.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 *
 * ErrorCode.isResultCode("signError") // true
 * ```
 */
export const isResultCode = (value: unknown): value is ResultCode =>
  typeof value === "string" && Object.hasOwn(httpStatusByCode, value)

/**
 * The HTTP status the service answers with for a result code.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 *
 * ErrorCode.httpStatus("duplicateOrder") // 409
 * ```
 */
export const httpStatus = (code: ResultCode): number => httpStatusByCode[code]

/**
 * The `msg` of a `signError` for a cause: `signature verification failed: <cause>`.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@pc/core"
 *
 * ErrorCode.signErrorMessage("timestamp outside the 5 minute window")
 * // "signature verification failed: timestamp outside the 5 minute window"
 * ```
 */
export const signErrorMessage = (cause: string): string => `${SIGN_ERROR_PREFIX}: ${cause}`
