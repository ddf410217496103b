/**
 * Every answer of the mock is the envelope `{code, msg, data}` as JSON, with the HTTP status of its
 * code (CONTRACT.md): successes, errors, 404s and oversized bodies alike. The domain refuses with an
 * {@link ApiError}; this is where it becomes an answer.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { ErrorCode } from "@pc/core"
import type { ApiError } from "../domain/ApiError.js"

/**
 * The envelope's JSON text: what every response body is, whichever path writes it.
 *
 * @example
 * ```ts
 * envelopeJson("SUCCESS", null, { orderSn }) // '{"code":"SUCCESS","msg":null,"data":{"orderSn":...}}'
 * ```
 */
export const envelopeJson = (code: ErrorCode.ResultCode, msg: string | null, data: unknown): string =>
  JSON.stringify({ code, msg, data })

/** An envelope response with the status of its code. */
export const envelope = (
  code: ErrorCode.ResultCode,
  msg: string | null,
  data: unknown,
  headers?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(envelopeJson(code, msg, data), {
    status: ErrorCode.httpStatus(code),
    contentType: "application/json",
    ...(headers === undefined ? {} : { headers })
  })

/** The success envelope. */
export const ok = (data: unknown, headers?: Readonly<Record<string, string>>) =>
  envelope("SUCCESS", null, data, headers)

/** The error envelope of an {@link ApiError}. */
export const fromError = (error: ApiError) => envelope(error.code, error.msg, null, error.headers)
