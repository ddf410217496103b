/**
 * What a request body must be before the domain reads it, judged on its bytes and its Content-Type
 * value: UTF-8 text, application/json, one JSON object no deeper than the contract allows. Plain
 * functions (and their Effect forms), so the create-order flow runs them without a fiber step
 * each; reading the bytes off the socket is the edge's (`server/Body.ts`).
 */
import * as Effect from "effect/Effect"
import { capped } from "../log/LogText.js"
import { ApiError, paramError } from "./ApiError.js"
import { checkJsonDepth, MAX_JSON_DEPTH } from "./JsonDepth.js"

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * The body as text, or the paramError for bytes that are not UTF-8 (JSON is UTF-8): a plain
 * function for the create-order flow, which runs its checks without a fiber step each.
 *
 * @example
 * ```ts
 * const text = utf8Text(bytes) // string, or ApiError paramError
 * ```
 */
export const utf8Text = (bytes: Uint8Array): string | ApiError => {
  try {
    return utf8.decode(bytes)
  } catch {
    return paramError("body is not valid UTF-8")
  }
}

/** The body as text; bytes that are not UTF-8 are a paramError (JSON is UTF-8). */
export const decodeUtf8 = (bytes: Uint8Array): Effect.Effect<string, ApiError> =>
  Effect.suspend(() => orFail(utf8Text(bytes)))

/** A value, or the ApiError a plain check returned instead, as an Effect. */
const orFail = <A>(result: A | ApiError): Effect.Effect<A, ApiError> =>
  result instanceof ApiError ? Effect.fail(result) : Effect.succeed(result)

/**
 * Refuses a Content-Type header value (`undefined` when none was sent) that is not application/json
 * (parameters such as charset=utf-8 allowed).
 *
 * @example
 * ```ts
 * yield* requireJsonMediaType("text/plain") // ApiError unsupportedMediaType
 * ```
 */
export const requireJsonMediaType = (contentType: string | undefined): Effect.Effect<void, ApiError> => {
  const refused = jsonMediaTypeRefusal(contentType)
  return refused === undefined ? Effect.void : Effect.fail(refused)
}

/**
 * {@link requireJsonMediaType} as a plain function: the unsupportedMediaType error, or `undefined`
 * for application/json.
 *
 * @example
 * ```ts
 * jsonMediaTypeRefusal("application/json; charset=utf-8") // undefined
 * ```
 */
export const jsonMediaTypeRefusal = (contentType: string | undefined): ApiError | undefined => {
  // What nearly every request sends, answered without splitting it.
  if (contentType === "application/json") return undefined
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase()
  return mediaType === "application/json"
    ? undefined
    : new ApiError({
        code: "unsupportedMediaType",
        msg:
          contentType === undefined
            ? "Content-Type is missing; send application/json"
            : `Content-Type ${capped(contentType, 100)} is not supported; send application/json`
      })
}

/**
 * Parses a JSON object body; anything else (invalid JSON, an array, a string) is a paramError, and
 * so is a body nested deeper than {@link MAX_JSON_DEPTH} levels, judged by a linear scan before
 * JSON.parse (CONTRACT.md): what runs after parsing (schema decoding, error formatting) recurses
 * with the depth, and a few thousand levels overflowed its stack.
 */
export const parseJsonObject = (text: string): Effect.Effect<Record<string, unknown>, ApiError> =>
  Effect.suspend(() => orFail(jsonObjectOf(text)))

/**
 * {@link parseJsonObject} as a plain function: the object, or the paramError.
 *
 * @example
 * ```ts
 * jsonObjectOf("[1]") // ApiError paramError "body is not a JSON object"
 * ```
 */
export const jsonObjectOf = (text: string): Record<string, unknown> | ApiError => {
  const depth = checkJsonDepth(text)
  if (!depth.ok) return paramError(`${depth.field}: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return paramError("body is not valid JSON")
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : paramError("body is not a JSON object")
}
