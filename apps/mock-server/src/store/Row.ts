// How a database row becomes a value: each field names its snake_case column and a schema decodes
// it (`@effect/sql`'s `SqlSchema`). A row the schema refuses was not written by this store's
// migrations and queries, and neither was a missing row where a query always returns one
// (`SELECT MAX(...)`): both are defects, not errors a caller could handle.
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * A field read from the column `name` and decoded by `schema`.
 *
 * @example
 * ```ts
 * const Row = Schema.Struct({ orderSn: column("order_sn", Schema.String) })
 * ```
 */
export const column = <const Name extends string, S extends Schema.Schema.Any>(name: Name, schema: S) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(name))

/** What a query decoded by a schema fails with when a row is not what the store wrote. */
export type BadRow = ParseResult.ParseError | Cause.NoSuchElementException

const isBadRow = (error: unknown): error is BadRow =>
  ParseResult.isParseError(error) || Cause.isNoSuchElementException(error)

/**
 * Turns a row the schema refuses (or a missing row from a query that always returns one) into a
 * defect, so the query's error type stays `SqlError`.
 *
 * @example
 * ```ts
 * const rows = yield* findOrders(appKey).pipe(badRowIsDefect)
 * ```
 */
export const badRowIsDefect = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, BadRow>, R> =>
  Effect.catchIf(self, isBadRow, Effect.die) as Effect.Effect<A, Exclude<E, BadRow>, R>
