// How the mock opens its database: a SQLite file locked for this process (or `:memory:`), or a
// PostgreSQL database shared by several replicas; then the migrations. Each layer gives the
// `SqlClient` the store modules query.
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs"
import { dirname } from "node:path"
import pg from "pg"
import { redactDatabaseUrl } from "./DatabaseUrl.js"
import { migrateAlone } from "./Dialect.js"
import { migrations } from "./Migrations.js"
import * as SqliteConnection from "./SqliteConnection.js"
import { type DriverName, defaultDriver, isBusy as isBusyCause } from "./SqliteDriver.js"
import { DatabaseInUse } from "./StoreError.js"

/**
 * Whether `--db` names a PostgreSQL database (`postgres://` or `postgresql://`) rather than a SQLite file.
 *
 * @example
 * ```ts
 * isPostgresUrl("postgres://mock@db/mock") // true
 * isPostgresUrl("./mock.sqlite") // false
 * ```
 */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

/** A database that is a file on disk (not `:memory:`, not SQLite's anonymous temporary database). */
const isFile = (db: string): boolean => db !== ":memory:" && db !== ""

/** SQLite's answer when another connection holds the lock (the cause of a SqlError). */
const isBusy = (error: SqlError): boolean => isBusyCause(error.cause)

/**
 * Opens the database for this process alone. On a file, the lock is taken before anything else:
 * two mocks on one file would both send every callback and each keep a stale auth cache, so the
 * second one is refused at once ({@link DatabaseInUse}) instead of after SQLite's usual busy wait.
 */
const lockSqlite = (db: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (isFile(db)) {
      yield* Effect.gen(function* () {
        // Short while claiming the file: a lock held by another process is not released by waiting.
        yield* sql`PRAGMA busy_timeout = 250`
        // EXCLUSIVE before the first WAL access: the connection keeps its file lock until it closes
        // (and the WAL index lives in its own memory), so no other process can read or write the file.
        yield* sql`PRAGMA locking_mode = EXCLUSIVE`
        yield* sql`PRAGMA journal_mode = WAL`
        // A write transaction takes the exclusive lock now rather than at the first real write.
        yield* sql`BEGIN IMMEDIATE`
        yield* sql`COMMIT`
        yield* sql`PRAGMA busy_timeout = 5000`
      }).pipe(
        Effect.catchTag(
          "SqlError",
          (error): Effect.Effect<never, SqlError | DatabaseInUse> =>
            isBusy(error) ? Effect.fail(new DatabaseInUse({ file: db })) : Effect.fail(error)
        )
      )
    }
    // WAL with synchronous=NORMAL: a commit is not fsynced, yet a killed process loses nothing
    // (only a power cut can drop the last commits), and creates stay fast.
    yield* sql`PRAGMA synchronous = NORMAL`
    yield* sql`PRAGMA foreign_keys = ON`
    if (isFile(db)) {
      // The checkpoints that copy the WAL into the file fsync both. SQLite's own runs inside the
      // commit that takes the WAL past 1,000 pages, with every request waiting on the WAL's fsync;
      // these run in the background at about the same 1,000 pages, the WAL's fsync on the thread
      // pool (WalCheckpoints.ts). SQLite's stays as the backstop, at 10,000 pages, far more than the
      // mock's fastest new orders write between two background looks.
      yield* sql`PRAGMA wal_autocheckpoint = 10000`
      yield* (yield* SqliteConnection.SqliteDirect).checkpointInBackground
    }
  })

/**
 * Makes the database file, readable and writable by its owner only (0600: it holds the platform
 * private keys), and its folder, unless they exist. SQLite gives its WAL file the same mode.
 */
const createFile = (db: string) =>
  Effect.sync(() => {
    if (!isFile(db) || existsSync(db)) return
    mkdirSync(dirname(db), { recursive: true })
    closeSync(openSync(db, "a", 0o600))
  })

/** Runs the migrations not yet applied, one process at a time (see Dialect.ts). */
const migrate = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  migrateAlone(sql, Migrator.make({})({ loader: Migrator.fromRecord(migrations) }))
)

/** Passes the client on once `prepare` has run on it (in the layer's scope: what it starts stops with it). */
const preparedWith = <E, R>(prepare: Effect.Effect<unknown, E, SqlClient.SqlClient | R | Scope.Scope>) =>
  Layer.scopedContext(Effect.zipRight(prepare, Effect.context<SqlClient.SqlClient>()))

/**
 * Opens the SQLite database `db` in the caller's scope with `driver` (node:sqlite where Node has it,
 * SqliteDriver.ts): the file (created 0600 if new, locked for this process, see {@link DatabaseInUse})
 * or `:memory:`, migrated. An effect, not a layer, so that
 * the store on it is one layer (Store.sqlite): as a tree of layers it took a quarter of the layers
 * the mock's start built, each costing Effect's memo map more than a migration does.
 *
 * @example
 * ```ts
 * const layer = Layer.scoped(Store, Effect.flatMap(openSqlite("./mock.sqlite"), (context) => Effect.provide(Store.make({ shared: false }), context)))
 * ```
 */
export const openSqlite = (db: string, driver: DriverName = defaultDriver()) =>
  Effect.gen(function* () {
    yield* createFile(db)
    const context = yield* SqliteConnection.open(db, driver)
    // The journal mode is set after taking the lock (lockSqlite), not by the client.
    yield* Effect.provide(Effect.zipRight(lockSqlite(db), migrate), context)
    return context
  })

// node-postgres hands BIGINT (int8) columns over as strings, since they may exceed 2^53; the
// mock's are epoch milliseconds and counts, well within it: read them as numbers, as on SQLite.
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
}

/**
 * The PostgreSQL database at `url`, shared with other replicas, migrated under a lock.
 *
 * @example
 * ```ts
 * const layer = Layer.effect(Store, Store.make({ shared: true })).pipe(Layer.provide(postgresDatabase(url)))
 * ```
 */
export const postgresDatabase = (url: string) =>
  preparedWith(migrate).pipe(
    Layer.provideMerge(
      PgClient.layer({ url: Redacted.make(url), types: pgTypes }).pipe(Layer.retry(untilDatabaseIsUp(url)))
    )
  )

/** Connection failures that mean "not up yet": refused, a name not yet in DNS, reset, "starting up" (57P03). */
const NOT_UP_YET = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET", "57P03"])

const codeOf = (error: unknown): string | undefined => {
  const cause = typeof error === "object" && error !== null && "cause" in error ? error.cause : undefined
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
  return typeof code === "string" ? code : undefined
}

const notUpYet = (error: unknown): boolean => {
  const code = codeOf(error)
  return code !== undefined && NOT_UP_YET.has(code)
}

/**
 * A mock started beside its database (a compose file starts both at once, and a container
 * orchestrator restarts them in any order) waits for it rather than exiting: while PostgreSQL is
 * not up yet the connection is tried again every second, for two minutes. Any other failure (a
 * wrong password, no such database) stops the start at once, with its own message.
 */
const untilDatabaseIsUp = (url: string) => {
  // Said once, not every second: a mistyped host name waits too, and must not look like a hang.
  let said = false
  return Schedule.spaced("1 second").pipe(
    Schedule.whileInput(notUpYet),
    Schedule.upTo("2 minutes"),
    Schedule.tapInput((error: unknown) => {
      if (said) return Effect.void
      said = true
      return Effect.logWarning(
        `PostgreSQL at ${redactDatabaseUrl(url)} is not up yet (${codeOf(error)}): trying again every second for up to 2 minutes`
      )
    })
  )
}
