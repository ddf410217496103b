/**
 * How a handler's domain failures reach the wire: an {@link ApiError} becomes its wire error (with
 * its headers), a storage failure is a defect that the app answers with internalError and logs.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type { ApiError } from "../domain/ApiError.js"
import { type CommonWireError, failWire, type WireError } from "../api/WireErrors.js"

/**
 * A handler's effect with its ApiErrors as wire errors and its SqlErrors as defects. `E` names the
 * wire errors the route's domain can raise (the create-order route adds signError, duplicateOrder
 * and rateLimited to the common ones).
 *
 * @example
 * ```ts
 * handlers.handle("createOrder", () => servedAs<CommonWireError | SignError>()(create))
 * ```
 */
export const servedAs =
  <E extends WireError>() =>
  <A, R>(effect: Effect.Effect<A, ApiError | SqlError, R>): Effect.Effect<A, E, R> =>
    Effect.catchAll(effect, (error) =>
      // ApiError's code is known only at run time; the API's error schema covers every code, so a
      // code outside `E` would still be answered as its envelope.
      error._tag === "ApiError" ? (failWire(error) as Effect.Effect<never, E>) : Effect.die(error)
    )

/** {@link servedAs} for the codes every route can answer. */
export const served = servedAs<CommonWireError>()
