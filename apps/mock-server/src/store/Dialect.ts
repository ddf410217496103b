// The one place where the engines shape the mock's SQL text. Every other query in the store modules
// is the same text on SQLite and PostgreSQL; what differs is a column type, a row-locking clause
// and how concurrent migrations are kept apart, and where a whole number is written into the text
// instead of bound: a LIMIT (for SQLite's sake) and a CASE branch (for PostgreSQL's). (How each
// engine is opened, SQLite's file lock and node-postgres's type parsers, is in Database.ts.)
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"

/**
 * The column type of epoch milliseconds: INTEGER on SQLite (64 bits), BIGINT on PostgreSQL, whose
 * INTEGER is 32 bits, too small for milliseconds since the epoch.
 *
 * @example
 * ```ts
 * yield* sql`CREATE TABLE t (at_ms ${epochMsType(sql)} NOT NULL)`
 * ```
 */
export const epochMsType = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({ pg: () => sql.literal("BIGINT"), orElse: () => sql.literal("INTEGER") })

/**
 * The clause that locks the rows a claim reads, skipping rows another transaction holds:
 * `FOR UPDATE SKIP LOCKED` on PostgreSQL, so replicas claiming at the same moment take disjoint
 * sets instead of queueing on each other's rows. SQLite has one writer and no row locks: nothing.
 *
 * @example
 * ```ts
 * sql`SELECT id FROM deliveries WHERE status = 'pending' ${skipLocked(sql)}`
 * ```
 */
export const skipLocked = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({ pg: () => sql.literal("FOR UPDATE SKIP LOCKED"), orElse: () => sql.literal("") })

/**
 * Joins each row of the query before it to the first rows of `table` that `rows` picks: a
 * correlated `WHERE ... ORDER BY ... LIMIT n` over the alias `inner_rows`, whose result is named
 * `first_rows` (it needs an `id` column). PostgreSQL runs it as a `CROSS JOIN LATERAL` and locks
 * the rows it picks `FOR UPDATE SKIP LOCKED` (see {@link skipLocked}); SQLite has no LATERAL and
 * runs the same subquery as an `IN` list of ids. Either way each outer row costs one index range
 * of at most `n` rows, whatever the size of the table (PostgreSQL would scan the whole table for
 * SQLite's form, and SQLite cannot parse PostgreSQL's).
 *
 * @example
 * ```ts
 * sql`SELECT first_rows.id FROM merchants m ${joinFirstRows(sql, "deliveries", sql`WHERE inner_rows.app_key = m.app_key
 *   ORDER BY inner_rows.next_attempt_at_ms LIMIT 4`)}`
 * ```
 */
export const joinFirstRows = (sql: SqlClient.SqlClient, table: string, rows: Statement.Fragment) =>
  sql.onDialectOrElse({
    pg: () => sql`CROSS JOIN LATERAL (SELECT * FROM ${sql(table)} inner_rows ${rows} ${skipLocked(sql)}) first_rows`,
    orElse: () =>
      sql`JOIN ${sql(table)} first_rows ON first_rows.id IN (SELECT inner_rows.id FROM ${sql(table)} inner_rows ${rows})`
  })

/**
 * A whole number written into the statement's text instead of bound as a parameter, for two
 * places where a bound one costs:
 * - `LIMIT`: SQLite plans a statement with its bound LIMIT's value, and so prepares it again on
 *   every run after a new binding, which for the dispatcher's claim (a recursive query) is most
 *   of its cost.
 * - a `CASE` whose every branch is a number: PostgreSQL cannot type it when each is a parameter.
 *
 * Each value makes its own statement text, so it suits values from a small range (a batch size up
 * to 128, a page size up to 200), which the bounded statement cache holds. Anything but a whole
 * number from 0 to 2^53 - 1 is the caller's defect, thrown here instead of sent to the database.
 *
 * The same re-preparing would come back for every bound value compared with an indexed column if
 * the database had statistics (`sqlite_stat4`): the mock never runs `ANALYZE` or
 * `PRAGMA optimize`, and must not.
 *
 * @example
 * ```ts
 * sql`SELECT * FROM orders ORDER BY created_at DESC LIMIT ${wholeNumber(sql, 50)}`
 * ```
 */
export const wholeNumber = (sql: SqlClient.SqlClient, value: number): Statement.Fragment => {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a whole number for SQL text: ${value}`)
  return sql.literal(String(value))
}

/** An arbitrary constant naming the mock's migration lock among PostgreSQL advisory locks. */
const MIGRATION_LOCK = 4_010_013

/**
 * Runs `migrate` so that processes starting together on one database do not migrate at once. On
 * PostgreSQL it holds an advisory lock for the transaction: one replica migrates, the others wait,
 * then find nothing left to do. SQLite's database belongs to one process (Database.ts): it just
 * migrates.
 *
 * @example
 * ```ts
 * yield* migrateAlone(sql, Migrator.make({})({ loader }))
 * ```
 */
export const migrateAlone = <A, E, R>(
  sql: SqlClient.SqlClient,
  migrate: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError, R> =>
  sql.onDialectOrElse({
    pg: () =>
      sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
          // The migrator probes for its table with a query that fails when it is missing, which
          // would abort this transaction: under the lock, make the table first (the migrator's own
          // definition).
          yield* sql`CREATE TABLE IF NOT EXISTS effect_sql_migrations (
            migration_id integer primary key,
            created_at timestamp with time zone not null default now(),
            name text not null
          )`
          return yield* migrate
        })
      ),
    orElse: () => migrate
  })
