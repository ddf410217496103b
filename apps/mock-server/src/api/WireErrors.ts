/**
 * The mock's errors as they cross the wire: one `Schema.TaggedError` per envelope code, each
 * annotated with its HTTP status and encoded as the envelope `{code, msg, data: null}` (no `_tag`
 * on the wire), so `HttpApiBuilder` answers them, `OpenApi` documents them and `HttpApiClient`
 * decodes them from one definition.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { ErrorCode } from "@pc/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ApiError } from "../domain/ApiError.js"

/** paramError 400: the body or a parameter is invalid; `msg` names the field. */
export class ParamError extends Schema.TaggedError<ParamError>()("ParamError", { msg: Schema.String }) {}
/** signError 401: authentication failed; `msg` starts with `signature verification failed`. */
export class SignError extends Schema.TaggedError<SignError>()("SignError", { msg: Schema.String }) {}
/** unauthorized 401: a developer-menu route without the developer token, where one is required. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { msg: Schema.String }) {}
/** notFound 404: no such route, or no such merchant, order, key version or delivery. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { msg: Schema.String }) {}
/** methodNotAllowed 405: the path exists with other methods (listed in `Allow`). */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  msg: Schema.String
}) {}
/** duplicateOrder 409: same appKey and orderId as an earlier order, another amount or currency. */
export class DuplicateOrder extends Schema.TaggedError<DuplicateOrder>()("DuplicateOrder", { msg: Schema.String }) {}
/** payloadTooLarge 413: the body is over the limit. */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  msg: Schema.String
}) {}
/** unsupportedMediaType 415: a body that is not application/json. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  msg: Schema.String
}) {}
/** rateLimited 429: over the per-appKey rate limit (`Retry-After` says when to try again). */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", { msg: Schema.String }) {}
/** serviceUnavailable 503: the database cannot be reached (a restart); `Retry-After` says when to try again. */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  msg: Schema.String
}) {}
/** internalError 500: a bug; `msg` quotes the request id. */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", { msg: Schema.String }) {}

type WireErrorClass<Self, I> = Schema.Schema<Self, I> & {
  new (props: { readonly msg: string }): Self
}

/** The envelope form of an error class: `{code, msg, data: null}` with the status of `code`. */
const onTheWire = <Self extends { readonly msg: string }, I>(
  errorClass: WireErrorClass<Self, I>,
  code: string,
  status: number,
  description: string
) =>
  Schema.transform(
    Schema.Struct({ code: Schema.Literal(code), msg: Schema.String, data: Schema.Null }),
    Schema.typeSchema(errorClass),
    {
      strict: true,
      decode: ({ msg }) => new errorClass({ msg }),
      encode: (error) => ({ code, msg: error.msg, data: null }) as const
    }
  ).annotations({
    ...HttpApiSchema.annotations({ status }),
    identifier: `${code}Envelope`,
    description,
    examples: [new errorClass({ msg: `${code}: see msg` })]
  })

/**
 * The error envelopes as schemas, for `HttpApiEndpoint.addError` / `HttpApiGroup.addError`.
 *
 * @example
 * ```ts
 * HttpApiEndpoint.post("createOrder", CREATE_ORDER_PATH).addError(ErrorEnvelopes.ParamError)
 * ```
 */
export const ErrorEnvelopes = {
  ParamError: onTheWire(ParamError, "paramError", 400, "The body or a parameter is invalid; msg names the field."),
  SignError: onTheWire(
    SignError,
    "signError",
    401,
    "Authentication failed; msg starts with `signature verification failed` and names the cause."
  ),
  Unauthorized: onTheWire(
    Unauthorized,
    "unauthorized",
    401,
    "The developer token is missing or wrong (only when the mock is bound to a non-loopback address)."
  ),
  NotFound: onTheWire(NotFound, "notFound", 404, "No such route or resource."),
  MethodNotAllowed: onTheWire(MethodNotAllowed, "methodNotAllowed", 405, "The path exists with other methods."),
  DuplicateOrder: onTheWire(
    DuplicateOrder,
    "duplicateOrder",
    409,
    "Same appKey and orderId as an earlier order, but another amount or currency."
  ),
  PayloadTooLarge: onTheWire(PayloadTooLarge, "payloadTooLarge", 413, "The body is over the limit."),
  UnsupportedMediaType: onTheWire(
    UnsupportedMediaType,
    "unsupportedMediaType",
    415,
    "A body whose Content-Type is not application/json."
  ),
  RateLimited: onTheWire(RateLimited, "rateLimited", 429, "Over the per-appKey rate limit; see Retry-After."),
  ServiceUnavailable: onTheWire(
    ServiceUnavailable,
    "serviceUnavailable",
    503,
    "The database cannot be reached (a PostgreSQL restart or failover); try again after Retry-After."
  ),
  InternalError: onTheWire(InternalError, "internalError", 500, "A bug; quote the request id when reporting it.")
} as const

/**
 * {@link ErrorEnvelopes} under its first name, kept because `WireErrors.Wire` is public; inside the
 * mock `Wire` means `@pc/core/Wire`, the contract's schemas.
 *
 * @deprecated Use {@link ErrorEnvelopes}.
 */
export const Wire = ErrorEnvelopes

/** Any error the mock sends as an envelope. */
export type WireError =
  | ParamError
  | SignError
  | Unauthorized
  | NotFound
  | MethodNotAllowed
  | DuplicateOrder
  | PayloadTooLarge
  | UnsupportedMediaType
  | RateLimited
  | ServiceUnavailable
  | InternalError

/** The errors any route can answer (the app's own: routing, body limits, decoding, bugs). */
export type CommonWireError =
  | ParamError
  | NotFound
  | MethodNotAllowed
  | PayloadTooLarge
  | UnsupportedMediaType
  | ServiceUnavailable
  | InternalError

const byCode = (code: ErrorCode.ErrorCode, msg: string): WireError => {
  switch (code) {
    case "paramError":
      return new ParamError({ msg })
    case "signError":
      return new SignError({ msg })
    case "notFound":
      return new NotFound({ msg })
    case "methodNotAllowed":
      return new MethodNotAllowed({ msg })
    case "duplicateOrder":
      return new DuplicateOrder({ msg })
    case "payloadTooLarge":
      return new PayloadTooLarge({ msg })
    case "unsupportedMediaType":
      return new UnsupportedMediaType({ msg })
    case "rateLimited":
      return new RateLimited({ msg })
    case "serviceUnavailable":
      return new ServiceUnavailable({ msg })
    case "internalError":
      return new InternalError({ msg })
  }
  // A code added to core before it has a wire class here still answers with its own status.
  return new InternalError({ msg })
}

/**
 * Fails with the wire error of a domain {@link ApiError}. Its extra headers (`Retry-After`,
 * `X-R-Signature-Check`, `Allow`) ride on the response through a pre-response handler, since the
 * error schema describes only the body.
 *
 * @example
 * ```ts
 * orders.move(orderSn, "PAID").pipe(Effect.catchTag("ApiError", failWire))
 * ```
 */
export const failWire = (error: ApiError): Effect.Effect<never, WireError> =>
  Effect.zipRight(withHeaders(error.headers), Effect.fail(byCode(error.code, error.msg)))

/**
 * Sets `headers` on whatever response this request ends with (success or error envelope).
 *
 * @example
 * ```ts
 * yield* withHeaders({ "x-r-signature-check": "valid" })
 * ```
 */
export const withHeaders = (headers: Readonly<Record<string, string>> | undefined): Effect.Effect<void> =>
  headers === undefined
    ? Effect.void
    : HttpApp.appendPreResponseHandler((_, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, headers))
      )
