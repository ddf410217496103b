// The mock's SQLite connection as `@effect/sql`'s `SqlClient`: one connection (node:sqlite or
// better-sqlite3, SqliteDriver.ts), each statement prepared once and kept. It replaces
// `@effect/sql-sqlite-node`'s client (better-sqlite3 only), whose statement cache (an Effect `Cache`
// with a time to live) and per-statement semaphore cost more per statement than SQLite's own work
// for a create. The rules are the
// same: statements outside a transaction run whenever no transaction holds the connection, and a
// transaction holds it from BEGIN to COMMIT or ROLLBACK, so nothing of another fiber lands inside.
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import {
  type DriverName,
  defaultDriver,
  openDatabase,
  type SqliteDatabase,
  type SqliteStatement
} from "./SqliteDriver.js"
import * as WalCheckpoints from "./WalCheckpoints.js"

/**
 * What needs the raw connection: its statements without `@effect/sql`'s per-statement steps (its
 * span, the SQL text compiled again, the connection acquired), for the statements every
 * create-order runs, each a plain synchronous call so nothing of another fiber can run in between;
 * and the file's WAL checkpoints in the background.
 */
export interface SqliteDirectService {
  /**
   * `sql` as a function that runs it with `params` and gives its rows, prepared at its first run
   * (the tables may not exist yet when it is asked for) and kept for the connection's life;
   * `undefined` while a transaction holds the connection, which the statement must not join: the
   * caller then goes through the `SqlClient`, which waits for the transaction's end. Throws what
   * the driver throws.
   */
  readonly statement: (sql: string) => (params: ReadonlyArray<unknown>) => ReadonlyArray<unknown> | undefined
  /**
   * As {@link statement}, for a statement that writes: the number of rows it changed. What a
   * `RETURNING` clause would say of an insert, without building the rows it returns.
   */
  readonly changes: (sql: string) => (params: ReadonlyArray<unknown>) => number | undefined
  /**
   * Readies the connection for one write of this turn of the event loop: `true` when the write may
   * run now, `false` when it cannot (a transaction of the `SqlClient` holds the connection: the
   * caller goes through it). The writes of every request of a turn commit together, once, when the
   * turn's I/O callbacks have run (a group write transaction: a commit per create was most of a
   * new order's storage work). When the last turn that wrote had one write (requests one at a
   * time), the turn's first write commits on its own instead (autocommit): a BEGIN, a COMMIT and a
   * wait for the turn's end saved, and as durable; a second write in that turn opens the group.
   * While a group is open the `SqlClient` waits for its commit, as it waits for a transaction.
   */
  readonly beginGroup: () => boolean
  /**
   * `value` once what it rests on is durable: itself when no group is open (everything read or
   * written is committed), else a Promise of it after the group's COMMIT, rejected with a SqlError when the
   * commit fails. An answer must wait for this: what the group wrote, or what a read found of it,
   * is not stored until then.
   */
  readonly committed: <A>(value: A) => A | Promise<A>
  /**
   * Starts checkpointing the file's WAL in the background until the scope closes (WalCheckpoints.ts):
   * for a file in WAL mode, once its lock is held. Like a direct statement, a checkpoint never
   * runs while a transaction holds the connection.
   */
  readonly checkpointInBackground: Effect.Effect<void, never, Scope.Scope>
}

/** The {@link SqliteDirectService} of the open SQLite file, in context. */
export class SqliteDirect extends Context.Tag("@pc/mock-server/SqliteDirect")<SqliteDirect, SqliteDirectService>() {}

/** Statements kept prepared; the mock has a few dozen, and SQL built per call (`IN (...)`) stays bounded. */
const MAX_PREPARED = 200

/** A bounded map of prepared statements by SQL text, the least recently used dropped first. */
const makePrepared = (db: SqliteDatabase) => {
  const statements = new Map<string, SqliteStatement>()
  return (sql: string): SqliteStatement => {
    const known = statements.get(sql)
    if (known !== undefined) {
      // Most recently used last: Map keeps insertion order.
      statements.delete(sql)
      statements.set(sql, known)
      return known
    }
    const statement = db.prepare(sql)
    if (statements.size >= MAX_PREPARED) statements.delete(statements.keys().next().value!)
    statements.set(sql, statement)
    return statement
  }
}

const failed = (cause: unknown, message: string) => new SqlError({ cause, message })

/** Runs a statement: its rows when it returns any, else `[]` (or the run result when `raw`). */
const runOn = (statement: SqliteStatement, params: ReadonlyArray<unknown>, raw: boolean): ReadonlyArray<unknown> => {
  if (statement.reader) return statement.all(params)
  const result = statement.run(params)
  return raw ? (result as unknown as ReadonlyArray<unknown>) : []
}

/**
 * The client on the SQLite database `filename` (a file or `:memory:`) through `driver`, closed with
 * the scope; a SqlError when the driver is missing or the file cannot be opened. The journal mode
 * and the other pragmas are the caller's (Database.ts sets them after taking the lock).
 */
const make = (
  filename: string,
  driver: DriverName
): Effect.Effect<Context.Context<SqlClient.SqlClient | SqliteDirect>, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const db = yield* Effect.try({
      try: () => openDatabase(filename, driver),
      catch: (cause) => failed(cause, `Failed to open the SQLite database with ${driver}: ${String(cause)}`)
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => db.close()))
    const prepared = makePrepared(db)

    const execute = (sql: string, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.try({
        try: () => runOn(prepared(sql), params, raw),
        catch: (cause) => failed(cause, "Failed to execute statement")
      })

    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        transformRows === undefined
          ? execute(sql, params, false)
          : Effect.map(execute(sql, params, false), (rows) => transformRows(rows as ReadonlyArray<object>)),
      executeRaw: (sql, params) => execute(sql, params, true),
      executeValues: (sql, params) =>
        Effect.try({
          try: () => {
            const statement = prepared(sql)
            if (!statement.reader) {
              statement.run(params)
              return []
            }
            return statement.values(params)
          },
          catch: (cause) => failed(cause, "Failed to execute statement")
        }),
      // What `@effect/sql` runs this way is its BEGIN, COMMIT, ROLLBACK and savepoints: kept
      // prepared like any statement, rather than compiled again for every transaction.
      executeUnprepared: (sql, params, transformRows) => {
        const rows = Effect.try({
          try: () => runOn(prepared(sql), params ?? [], false),
          catch: (cause) => failed(cause, "Failed to execute statement")
        })
        return transformRows === undefined
          ? rows
          : Effect.map(rows, (all) => transformRows(all as ReadonlyArray<object>))
      },
      executeStream: () => Effect.dieMessage("executeStream is not implemented for SQLite") as never
    }

    // A transaction holds the one permit from BEGIN to its end. A statement outside one only needs
    // the connection free: while no transaction is open that is now, without a fiber step for it.
    const semaphore = yield* Effect.makeSemaphore(1)
    let transactions = 0
    const gated = semaphore.withPermits(1)(Effect.succeed(connection))
    const idle = Effect.succeed(connection)

    // The group write transaction of the current turn (see SqliteDirectService.beginGroup): who
    // waits for its commit, and what to run after it (the SqlClient's waiting statements).
    let group:
      | {
          readonly waiting: Array<{ readonly settle: (error: SqlError | undefined) => void }>
          readonly after: Array<() => void>
          /** The turn's writes, the one committed on its own before the group opened included. */
          writes: number
        }
      | undefined
    // Whether the last turn that wrote had one write: the next turn's first write then commits on
    // its own. `soloTurn`: this turn's first write did, so a second one opens the group.
    let alone = false
    let soloTurn = false
    const endSoloTurn = () => {
      soloTurn = false
    }
    const commitGroup = () => {
      const ending = group
      if (ending === undefined) return
      alone = ending.writes === 1
      let error: SqlError | undefined
      try {
        prepared("COMMIT").run([])
      } catch (cause) {
        error = failed(cause, "Failed to commit the group transaction")
        try {
          if (db.inTransaction()) prepared("ROLLBACK").run([])
        } catch {
          // The connection is gone or broken: every waiter hears of the commit's failure anyway.
        }
      }
      group = undefined
      for (const waiter of ending.waiting) waiter.settle(error)
      for (const resume of ending.after) resume()
    }
    // Closed with a group open (a stop in the middle of a turn): it commits before the connection
    // closes (finalizers run last-added first), as it would have at the turn's end.
    yield* Effect.addFinalizer(() => Effect.sync(commitGroup))
    /** Waits for the open group's commit, if there is one. */
    const groupEnded = Effect.async<void>((resume) => {
      if (group === undefined) resume(Effect.void)
      else group.after.push(() => resume(Effect.void))
    })

    const acquirer: Effect.Effect<Connection> = Effect.suspend(() =>
      group !== undefined ? Effect.zipRight(groupEnded, acquirer) : transactions === 0 ? idle : gated
    )
    // Counted before it waits for an open group: no group begins once a transaction is counted.
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          Effect.zipRight(
            restore(semaphore.take(1)),
            Effect.tap(Effect.scope, (scope) =>
              Effect.zipRight(
                Effect.sync(() => {
                  transactions++
                }),
                Scope.addFinalizer(
                  scope,
                  Effect.zipRight(
                    Effect.sync(() => {
                      transactions--
                    }),
                    semaphore.release(1)
                  )
                )
              )
            )
          ),
          restore(groupEnded)
        ),
        connection
      )
    )

    const client = yield* SqlClient.make({
      acquirer,
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]]
    })
    // A direct statement is held by its caller, outside the cache above (no lookup by SQL text per
    // run), prepared at its first run; `undefined` while a transaction holds the connection.
    const held = <A>(sql: string, use: (statement: SqliteStatement, params: ReadonlyArray<unknown>) => A) => {
      let statement: SqliteStatement | undefined
      return (params: ReadonlyArray<unknown>): A | undefined => {
        if (transactions !== 0) return undefined
        statement ??= db.prepare(sql)
        return use(statement, params)
      }
    }
    const direct: SqliteDirect["Type"] = {
      statement: (sql) => held(sql, (statement, params) => runOn(statement, params, false)),
      changes: (sql) => held(sql, (statement, params) => Number(statement.run(params).changes)),
      beginGroup: () => {
        if (group !== undefined) {
          group.writes++
          return true
        }
        if (transactions !== 0 || db.inTransaction()) return false
        if (alone && !soloTurn) {
          soloTurn = true
          setImmediate(endSoloTurn)
          return true
        }
        prepared("BEGIN IMMEDIATE").run([])
        group = { waiting: [], after: [], writes: soloTurn ? 2 : 1 }
        // After the poll phase: the requests whose bodies or verifications came in this turn join first.
        setImmediate(commitGroup)
        return true
      },
      committed: <A>(value: A): A | Promise<A> => {
        const open = group
        if (open === undefined) return value
        return new Promise<A>((resolve, reject) => {
          open.waiting.push({ settle: (error) => (error === undefined ? resolve(value) : reject(error)) })
        })
      },
      checkpointInBackground: Effect.suspend(() =>
        WalCheckpoints.inBackground(db, filename, () => transactions === 0 && !db.inTransaction(), groupEnded)
      )
    }
    return Context.make(SqlClient.SqlClient, client).pipe(Context.add(SqliteDirect, direct))
  })

/**
 * The `SqlClient` on the SQLite database `filename`, prepared statements kept for the connection's
 * life, and {@link SqliteDirect} on the same connection; through `driver`, by default node:sqlite
 * where Node has it (SqliteDriver.ts).
 *
 * @example
 * ```ts
 * const layer = SqliteConnection.layer("./mock.sqlite") // then PRAGMA journal_mode = WAL, migrations
 * ```
 */
export const layer = (
  filename: string,
  driver: DriverName = defaultDriver()
): Layer.Layer<SqlClient.SqlClient | SqliteDirect, SqlError> => Layer.scopedContext(open(filename, driver))

/**
 * The same as {@link layer}, as an effect in the caller's scope: for a layer that opens the
 * connection among other steps (Database.ts), without a layer of its own for it.
 *
 * @example
 * ```ts
 * const context = yield* SqliteConnection.open(":memory:") // in a scope
 * ```
 */
export const open = (
  filename: string,
  driver: DriverName = defaultDriver()
): Effect.Effect<Context.Context<SqlClient.SqlClient | SqliteDirect>, SqlError, Scope.Scope> =>
  Effect.provideServiceEffect(make(filename, driver), Reactivity.Reactivity, Reactivity.make)
