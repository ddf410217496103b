/**
 * The envelope's result codes and the HTTP status of each (spec 7 and the project contract).
 * Clients decide on the code, never on the HTTP status alone.
 *
 * @since 0.1.0
 */

/** Every result code with its HTTP status. */
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
  internalError: 500
} as const

/** Any code an envelope can carry. */
export type ResultCode = keyof typeof httpStatusByCode

/** A code that means the request failed. */
export type ErrorCode = Exclude<ResultCode, "SUCCESS">

/** Every result code, in a stable order. */
export const resultCodes = Object.keys(httpStatusByCode) as ReadonlyArray<ResultCode>

/** Every error code, in a stable order. */
export const errorCodes = resultCodes.filter((code): code is ErrorCode => code !== "SUCCESS")

/** `msg` of every `signError` starts with this, then `: ` and the cause. */
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
