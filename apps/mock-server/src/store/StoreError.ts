// The store's typed errors: what a caller can handle (a missing row, a final order, an idempotency
// conflict) and why a database cannot be opened. Failures of the database itself are `SqlError`.
import { SqlError } from "@effect/sql/SqlError"
import type { Environment } from "@pc/core"
import type * as Wire from "@pc/core/Wire"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { OrderRecord } from "./Records.js"

/** The database belongs to another environment: refusing to mix sandbox and production data. */
export class EnvironmentMismatch extends Data.TaggedError("EnvironmentMismatch")<{
  readonly expected: Environment.Environment
  readonly found: string
}> {
  override get message() {
    return `this database holds ${this.found} data; start the ${this.expected} mock with another --db`
  }
}

/** Another process holds the database file: two mocks on one file would both send every callback. */
export class DatabaseInUse extends Data.TaggedError("DatabaseInUse")<{ readonly file: string }> {
  override get message() {
    return `another mock is using ${this.file}; stop it or pass another --db`
  }
}

/** No row for what `what` names (e.g. `merchant 7e57…`, `delivery dlv_…`). */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly what: string }> {}

/** The order is already in a final state, which it never leaves. */
export class AlreadyFinal extends Data.TaggedError("AlreadyFinal")<{ readonly status: Wire.OrderStatus }> {}

/** An order with the same appKey + orderId exists with another amount or currency. */
export class Conflict extends Data.TaggedError("Conflict")<{ readonly existing: OrderRecord }> {}

/**
 * Whether a store's Promise rejected for the database (a storage failure) rather than a defect.
 *
 * @example
 * ```ts
 * promise.catch((error) => (isSqlError(error) ? retryLater() : crash(error)))
 * ```
 */
export const isSqlError = (error: unknown): error is SqlError => error instanceof SqlError

/**
 * A store's Promise as an Effect: a SqlError it rejects with is the failure, anything else a defect.
 *
 * @example
 * ```ts
 * const keys = yield* fromStorePromise(() => sharedAuthKeys(appKey))
 * ```
 */
export const fromStorePromise = <A>(promise: () => Promise<A>): Effect.Effect<A, SqlError> =>
  Effect.async<A, SqlError>((resume) => {
    promise().then(
      (value) => resume(Effect.succeed(value)),
      (error: unknown) => resume(isSqlError(error) ? Effect.fail(error) : Effect.die(error))
    )
  })
