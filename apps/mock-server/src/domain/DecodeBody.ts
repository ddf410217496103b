/**
 * Decodes a parsed JSON body with the Schema that documents it; a failure is a paramError whose
 * msg starts with the field it is about (`notifyUrl: ...`), as the contract asks.
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type ApiError, paramError } from "./ApiError.js"

/**
 * The paramError of a parse failure: the first issue, led by its path.
 *
 * @example
 * ```ts
 * paramErrorOf(error) // ApiError { code: "paramError", msg: "notifyUrl: is missing" }
 * ```
 */
export const paramErrorOf = (error: ParseResult.ParseError, fallback = "body"): ApiError => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  const field = issue?.path.join(".") || fallback
  return paramError(`${field}: ${issue?.message ?? "invalid"}`)
}

/**
 * Decodes `body` with `schema` (unknown fields ignored, first error reported).
 *
 * @example
 * ```ts
 * const input = yield* decodeBody(MerchantCreate)(yield* jsonObjectBody(limit))
 * ```
 */
export const decodeBody =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (body: unknown): Effect.Effect<A, ApiError> =>
    Schema.decodeUnknown(schema)(body, { errors: "first", onExcessProperty: "ignore" }).pipe(
      Effect.mapError((error) => paramErrorOf(error))
    )
