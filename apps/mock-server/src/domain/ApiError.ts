/**
 * How a request is refused, said once for the domain: a result code from the contract and its msg.
 * The envelope and the HTTP status are written from it at the edge (`api/Envelope.ts`,
 * `api/WireErrors.ts`), so nothing here knows about HTTP.
 */
import { ErrorCode } from "@pc/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

interface ApiErrorFields {
  readonly code: ErrorCode.ErrorCode
  readonly msg: string
  /** Headers the refusal carries to the client (`Retry-After`, the sandbox's signature check). */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * A request that ends in an error envelope. It is an answer to the client, never a fault of the
 * mock, so it captures no stack trace: nothing reads those frames, and a flood of bad signatures
 * would build one per request (bench/RESULTS.md, "Mock server: figures behind its comments").
 *
 * @example
 * ```ts
 * Effect.fail(new ApiError({ code: "paramError", msg: "amount must be positive" }))
 * ```
 */
export class ApiError extends Data.TaggedError("ApiError")<ApiErrorFields> {
  constructor(fields: ApiErrorFields) {
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    try {
      super(fields)
    } finally {
      Error.stackTraceLimit = limit
    }
  }
}

export const paramError = (msg: string) => new ApiError({ code: "paramError", msg })
export const notFound = (msg: string) => new ApiError({ code: "notFound", msg })
export const signError = (cause: string, headers?: Readonly<Record<string, string>>) =>
  headers === undefined
    ? new ApiError({ code: "signError", msg: ErrorCode.signErrorMessage(cause) })
    : new ApiError({ code: "signError", msg: ErrorCode.signErrorMessage(cause), headers })

/**
 * The value of a lookup, or notFound (`no <what>`) when there is none.
 *
 * @example
 * ```ts
 * store.getOrder(orderSn).pipe(orNotFound(`order ${orderSn}`))
 * ```
 */
export const orNotFound =
  (what: string) =>
  <A, E, R>(lookup: Effect.Effect<Option.Option<A>, E, R>): Effect.Effect<A, E | ApiError, R> =>
    Effect.flatMap(
      lookup,
      Option.match({ onNone: () => Effect.fail(notFound(`no ${what}`)), onSome: (value) => Effect.succeed(value) })
    )
