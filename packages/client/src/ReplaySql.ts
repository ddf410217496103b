/**
 * A replay guard on a database table, shared by every process that receives callbacks: any
 * `@effect/sql` client (PostgreSQL, MySQL, SQLite). One row per accepted delivery, inserted if
 * absent; rows expire and are pruned. Import it from `@pc/client/replay-sql`; it needs
 * `@effect/sql` and the driver package of your database (`@effect/sql-pg`, `@effect/sql-mysql2`,
 * `@effect/sql-sqlite-node`).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { DEFAULT_TTL_MS, invalidTtl, keepUntil, keyDigest, randomClaim } from "./internal/replayExpiry.js"
import { ConfigurationError } from "./PaymentClientError.js"
import type { ReplayEntry, ReplayGuard } from "./ReplayGuard.js"

/**
 * Options of {@link make}.
 *
 * @example
 * ```ts
 * import type { ReplaySql } from "@pc/client/replay-sql"
 *
 * const options: ReplaySql.Options = { table: "callback_replays", ttlMs: 15 * 60 * 1000 }
 * ```
 */
export interface Options {
  /** The table's name (letters, digits, `_`, at most 52 characters). Default `pc_callback_replays`. */
  readonly table?: string | undefined
  /** How long a delivery is kept after it arrived; at least the 5 minute window. Default 10 minutes. */
  readonly ttlMs?: number | undefined
  /** Whether {@link make} creates the table (and its index) when missing. Default `true`. */
  readonly createTable?: boolean | undefined
  /** How often expired rows are deleted, at most, by each guard. Default every minute. */
  readonly pruneEveryMs?: number | undefined
}

/** The guard {@link make} gives: `seenBefore` runs on the SQL client it was made with. */
export interface SqlReplayGuard extends ReplayGuard {
  readonly seenBefore: (entry: ReplayEntry) => Effect.Effect<boolean, SqlError>
}

// The index is named `<table>_expires_at`: 52 + 11 characters fit MySQL's 64 and PostgreSQL's 63
// (MySQL refuses a longer name; PostgreSQL cuts it, so two long table names could share an index).
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,51}$/

const invalid = (option: string, message: string) =>
  new ConfigurationError({ message: `invalid option ${option}: ${message}`, reason: "InvalidOption", option })

/**
 * Makes a replay guard on the `SqlClient` in context, creating its table unless told not to. Pass
 * it as `replayGuard` to `Callback.make` or `Callback.layer` in every process that receives
 * callbacks: a delivery accepted by one is refused as `Replayed` by all the others.
 *
 * How it decides, the same on every dialect: delete this delivery's row if it has expired, insert
 * a row with a random claim if none exists (`ON CONFLICT DO NOTHING`, MySQL `INSERT IGNORE`), then
 * read the row back: the delivery is new only where the stored claim is this call's own. Racing
 * processes all insert; the primary key lets exactly one row in, so exactly one of them accepts.
 * Rows are keyed by the SHA-256 of the delivery key, so any eventId fits.
 *
 * Fails with `ConfigurationError` for an invalid table name or `ttlMs`, or a dialect other than
 * PostgreSQL, MySQL or SQLite; with `SqlError` when the table cannot be created. A `SqlError` from
 * `seenBefore` refuses the callback (`ReplayGuardFailed`, answered 500): the guard fails closed.
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Callback } from "@pc/client"
 * import { ReplaySql } from "@pc/client/replay-sql"
 * import { Effect, Redacted } from "effect"
 *
 * const verifier = Effect.gen(function* () {
 *   const replayGuard = yield* ReplaySql.make()
 *   return yield* Callback.make({ environment: "production", appKey, platformKeys, replayGuard })
 * }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(process.env.DATABASE_URL!) })))
 * ```
 */
export const make = (
  options: Options = {}
): Effect.Effect<SqlReplayGuard, ConfigurationError | SqlError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tableName = options.table ?? "pc_callback_replays"
    if (!IDENTIFIER.test(tableName)) {
      return yield* invalid("table", "letters, digits and _ only, starting with a letter or _, at most 52 characters")
    }
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS
    const ttlProblem = invalidTtl(ttlMs)
    if (ttlProblem !== undefined) return yield* invalid("ttlMs", ttlProblem)
    const pruneEveryMs = options.pruneEveryMs ?? 60_000
    if (!(pruneEveryMs >= 0)) return yield* invalid("pruneEveryMs", "expected a number of milliseconds >= 0")
    const supported = sql.onDialectOrElse({ mssql: () => false, clickhouse: () => false, orElse: () => true })
    if (!supported) {
      return yield* new ConfigurationError({
        message: "ReplaySql supports PostgreSQL, MySQL and SQLite clients",
        reason: "InvalidOption",
        option: "SqlClient"
      })
    }
    const table = sql(tableName)
    const index = sql(`${tableName}_expires_at`)

    if (options.createTable !== false) {
      const create = sql.onDialectOrElse({
        // MySQL has no CREATE INDEX IF NOT EXISTS: the index is declared with the table.
        mysql: () => sql`CREATE TABLE IF NOT EXISTS ${table} (
          delivery VARCHAR(64) NOT NULL PRIMARY KEY,
          claim VARCHAR(32) NOT NULL,
          expires_at BIGINT NOT NULL,
          INDEX ${index} (expires_at)
        )`,
        orElse: () =>
          Effect.zipRight(
            sql`CREATE TABLE IF NOT EXISTS ${table} (
              delivery VARCHAR(64) NOT NULL PRIMARY KEY,
              claim VARCHAR(32) NOT NULL,
              expires_at BIGINT NOT NULL
            )`,
            sql`CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at)`
          )
      })
      // Receivers that start together race to create the table; PostgreSQL can fail the loser of
      // that race (a duplicate catalogue row) even with IF NOT EXISTS. Once more finds it made.
      yield* Effect.retry(create, { times: 2 })
    }

    const insertIfAbsent = (delivery: string, claim: string, expiresAt: number) =>
      sql.onDialectOrElse({
        mysql: () =>
          sql`INSERT IGNORE INTO ${table} (delivery, claim, expires_at) VALUES (${delivery}, ${claim}, ${expiresAt})`,
        orElse:
          () => sql`INSERT INTO ${table} (delivery, claim, expires_at) VALUES (${delivery}, ${claim}, ${expiresAt})
          ON CONFLICT (delivery) DO NOTHING`
      })

    let nextPruneAt = Number.NEGATIVE_INFINITY
    const prune = (now: number) =>
      Effect.suspend(() => {
        if (now < nextPruneAt) return Effect.void
        nextPruneAt = now + pruneEveryMs
        return Effect.asVoid(sql`DELETE FROM ${table} WHERE expires_at <= ${now}`)
      })

    return {
      seenBefore: (entry) =>
        Effect.gen(function* () {
          const now = entry.receivedAt
          const delivery = yield* Effect.promise(() => keyDigest(entry.key))
          const claim = randomClaim()
          yield* prune(now)
          // Each statement commits on its own, so a racing insert is visible to the read below.
          yield* sql`DELETE FROM ${table} WHERE delivery = ${delivery} AND expires_at <= ${now}`
          yield* insertIfAbsent(delivery, claim, keepUntil(entry, ttlMs))
          const [row] = yield* sql<{ readonly claim: string }>`SELECT claim FROM ${table} WHERE delivery = ${delivery}`
          // No row: another guard deleted it as expired between our insert and read, which needs
          // its clock to be past the window; refuse rather than guess.
          return row?.claim !== claim
        })
    }
  })
