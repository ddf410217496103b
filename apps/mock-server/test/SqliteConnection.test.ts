// The mock's own SQLite SqlClient (store/SqliteConnection.ts) on a real SQLite file: statements from
// other fibers never land inside an open transaction, statements past the prepared-statement bound
// still run, a failing statement is a SqlError, and the WAL reaches the file by the background
// checkpoints (WalCheckpoints.ts), before SQLite's own would copy it.
import * as SqlClient from "@effect/sql/SqlClient"
import { Deferred, Effect, Either, Fiber } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as SqliteConnection from "../src/store/SqliteConnection.js"
import { SqliteDirect } from "../src/store/SqliteConnection.js"
import { type DriverName, hasNodeSqlite, openDatabase } from "../src/store/SqliteDriver.js"

const dir = mkdtempSync(join(tmpdir(), "sqlite-connection-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

/** The drivers that load on this Node: better-sqlite3 where its addon was built for it, node:sqlite on 22.13+/24+. */
const drivers = (["better-sqlite3", "node:sqlite"] as const).filter((driver) => {
  if (driver === "node:sqlite") return hasNodeSqlite()
  try {
    openDatabase(":memory:", driver).close()
    return true
  } catch {
    return false
  }
})

const names = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ name: string }>`SELECT name FROM t ORDER BY name`, (rows) => rows.map((row) => row.name))

describe.each(drivers)("SqliteConnection on %s", (driver: DriverName) => {
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | SqliteDirect>) =>
    Effect.runPromise(Effect.provide(effect, SqliteConnection.layer(join(dir, `db-${++files}.sqlite`), driver)))

  it("runs a statement of another fiber after an open transaction ends, not inside it", async () => {
    const result = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE t (name TEXT PRIMARY KEY)`
        const inserted = yield* Deferred.make<void>()
        const finish = yield* Deferred.make<void>()
        // A transaction that writes, waits, then fails: everything in it is rolled back.
        const transaction = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO t (name) VALUES ('inside')`
              yield* Deferred.succeed(inserted, undefined)
              yield* Deferred.await(finish)
              return yield* Effect.fail("roll back" as const)
            })
          )
          .pipe(Effect.either, Effect.fork)
        yield* Deferred.await(inserted)
        // Outside the transaction, while it is open: it must wait, or the rollback would take it too.
        const outside = yield* Effect.fork(sql`INSERT INTO t (name) VALUES ('outside')`)
        yield* Effect.yieldNow()
        const waitedWhileOpen = (yield* Fiber.poll(outside))._tag === "None"
        yield* Deferred.succeed(finish, undefined)
        const ended = yield* Fiber.join(transaction)
        yield* Fiber.join(outside)
        return { waitedWhileOpen, rolledBack: Either.isLeft(ended), rows: yield* names(sql) }
      })
    )
    expect(result).toEqual({ waitedWhileOpen: true, rolledBack: true, rows: ["outside"] })
  })

  it("runs a direct statement at once outside a transaction, and refuses to while one is open", async () => {
    const result = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const direct = yield* SqliteDirect
        // Asked for before its table exists, as a store asks before the migrations ran.
        const insert = direct.statement("INSERT INTO t (name) VALUES (?) RETURNING name")
        const plainInsert = direct.statement("INSERT INTO t (name) VALUES (?)")
        yield* sql`CREATE TABLE t (name TEXT PRIMARY KEY)`
        const before = insert(["before"])
        const during = yield* sql.withTransaction(Effect.sync(() => insert(["during"])))
        const plain = plainInsert(["plain"])
        const after = direct.statement("SELECT name FROM t ORDER BY name")([])
        return { before, during, plain, after }
      })
    )
    expect(result).toEqual({
      before: [{ name: "before" }],
      during: undefined,
      plain: [],
      after: [{ name: "before" }, { name: "plain" }]
    })
  })

  it("counts the rows a direct write changed: 1 for an insert, 0 for one that conflicted, none while a transaction is open", async () => {
    const result = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const direct = yield* SqliteDirect
        const insert = direct.changes("INSERT INTO counted (name) VALUES (?) ON CONFLICT DO NOTHING")
        yield* sql`CREATE TABLE counted (name TEXT PRIMARY KEY)`
        const first = insert(["a"])
        const again = insert(["a"])
        const during = yield* sql.withTransaction(Effect.sync(() => insert(["b"])))
        const rows = direct.statement("SELECT name FROM counted ORDER BY name")([])
        return { first, again, during, rows }
      })
    )
    expect(result).toEqual({ first: 1, again: 0, during: undefined, rows: [{ name: "a" }] })
  })

  it("commits the writes of one turn of the event loop together, and answers them only after that commit", async () => {
    const file = join(dir, `db-${++files}.sqlite`)
    const result = await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const direct = yield* SqliteDirect
          yield* sql`CREATE TABLE t (name TEXT PRIMARY KEY)`
          const insert = direct.statement("INSERT INTO t (name) VALUES (?)")
          const idle = direct.committed("nothing open")
          // Two writes in one turn: one group, one transaction, and neither is answered before its commit.
          const began = [direct.beginGroup(), direct.beginGroup()]
          insert(["first"])
          insert(["second"])
          const answers = [direct.committed("first"), direct.committed("second")]
          // Another connection (another process) sees nothing of them while the group is open.
          const other = openDatabase(file, driver)
          const seenBefore = other.prepare("SELECT count(*) AS n FROM t").all([])
          // A statement of the SqlClient waits for the group's commit rather than joining it.
          const counted = yield* Effect.fork(sql<{ n: number }>`SELECT count(*) AS n FROM t`)
          const bothPromises = answers.every((answer) => answer instanceof Promise)
          const settled = yield* Effect.promise(() => Promise.all(answers))
          const seenAfter = other.prepare("SELECT count(*) AS n FROM t").all([])
          other.close()
          return { idle, began, bothPromises, settled, seenBefore, seenAfter, counted: yield* Fiber.join(counted) }
        }),
        SqliteConnection.layer(file, driver)
      )
    )
    expect(result).toEqual({
      idle: "nothing open",
      began: [true, true],
      bothPromises: true,
      settled: ["first", "second"],
      seenBefore: [{ n: 0 }],
      seenAfter: [{ n: 2 }],
      counted: [{ n: 2 }]
    })
  })

  it("commits the one write of a turn on its own after a turn of one write, and groups again when more come", async () => {
    const file = join(dir, `db-${++files}.sqlite`)
    const turnEnd = () => new Promise((resolve) => setImmediate(resolve))
    const result = await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const direct = yield* SqliteDirect
          yield* sql`CREATE TABLE t (name TEXT PRIMARY KEY)`
          const insert = direct.statement("INSERT INTO t (name) VALUES (?)")
          const other = openDatabase(file, driver)
          const count = () => other.prepare("SELECT count(*) AS n FROM t").all([])
          // A turn with one write: a group of one, answered after its commit.
          direct.beginGroup()
          insert(["a"])
          const grouped = direct.committed("a")
          yield* Effect.promise(() => Promise.resolve(grouped))
          yield* Effect.promise(turnEnd)
          // The next turn's first write commits on its own: stored (seen by another connection) at once.
          const began = direct.beginGroup()
          insert(["b"])
          const alone = direct.committed("b")
          const seenAtOnce = count()
          // A second write in the same turn opens the group, and waits for its commit.
          direct.beginGroup()
          insert(["c"])
          const second = direct.committed("c")
          const seenBeforeCommit = count()
          const settled = yield* Effect.promise(() => Promise.resolve(second))
          const seenAfter = count()
          // That turn had two writes: the next turn's first write joins a group again.
          yield* Effect.promise(turnEnd)
          direct.beginGroup()
          insert(["d"])
          const regrouped = direct.committed("d")
          const waitsAgain = regrouped instanceof Promise
          yield* Effect.promise(() => Promise.resolve(regrouped))
          other.close()
          return {
            firstWaits: grouped instanceof Promise,
            began,
            alone,
            seenAtOnce,
            secondWaits: second instanceof Promise,
            seenBeforeCommit,
            settled,
            seenAfter,
            waitsAgain,
            rows: yield* names(sql)
          }
        }),
        SqliteConnection.layer(file, driver)
      )
    )
    expect(result).toEqual({
      firstWaits: true,
      began: true,
      alone: "b",
      seenAtOnce: [{ n: 2 }],
      secondWaits: true,
      seenBeforeCommit: [{ n: 2 }],
      settled: "c",
      seenAfter: [{ n: 3 }],
      waitsAgain: true,
      rows: ["a", "b", "c", "d"]
    })
  })

  it("keeps answering past its bound of prepared statements (the oldest are prepared again)", async () => {
    const rows = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // Commits without fsync: 300 of them are the test's whole time otherwise.
        yield* sql`PRAGMA synchronous = OFF`
        yield* sql`CREATE TABLE t (name TEXT PRIMARY KEY)`
        // 300 distinct statement texts, more than the 200 kept, then the first ones again.
        for (let i = 0; i < 300; i++)
          yield* sql.unsafe(`INSERT INTO t (name) VALUES ('n${String(i).padStart(3, "0")}')`)
        const again = yield* sql.unsafe<{ name: string }>(`SELECT name FROM t WHERE name = 'n000'`)
        const count = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM t`
        return { again: again.map((row) => row.name), count: count[0]!.n }
      })
    )
    expect(rows).toEqual({ again: ["n000"], count: 300 })
  })

  it("fails a refused statement with SqlError, and the connection goes on", async () => {
    const result = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE t (name TEXT PRIMARY KEY)`
        yield* sql`INSERT INTO t (name) VALUES ('a')`
        const repeated = yield* Effect.either(sql`INSERT INTO t (name) VALUES ('a')`)
        yield* sql`INSERT INTO t (name) VALUES ('b')`
        return { error: Either.isLeft(repeated) ? repeated.left._tag : "none", rows: yield* names(sql) }
      })
    )
    expect(result).toEqual({ error: "SqlError", rows: ["a", "b"] })
  })

  it("copies committed rows from the WAL into the database file in the background", async () => {
    const file = join(dir, `db-${++files}.sqlite`)
    const copy = join(dir, `copy-${files}.sqlite`)
    // The database file alone, without its WAL: only what a checkpoint copied into it.
    const rowsInFile = (): number => {
      // In another process: closing any descriptor of the file in this one would drop SQLite's
      // POSIX lock on it (locks are the process's, and go with the first close).
      execFileSync("cp", [file, copy])
      rmSync(`${copy}-wal`, { force: true })
      const db = openDatabase(copy, driver)
      try {
        const table = db.prepare("SELECT name FROM sqlite_master WHERE name = 't'").all([])
        return table.length === 0 ? 0 : (db.prepare("SELECT COUNT(*) AS n FROM t").all([])[0] as { n: number }).n
      } finally {
        db.close()
      }
    }
    const seen = await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // As the mock opens its file (Database.ts).
        yield* sql`PRAGMA locking_mode = EXCLUSIVE`
        yield* sql`PRAGMA journal_mode = WAL`
        yield* sql`PRAGMA synchronous = NORMAL`
        yield* (yield* SqliteDirect).checkpointInBackground
        yield* sql`CREATE TABLE t (name TEXT PRIMARY KEY)`
        // 150 commits: about 300 WAL pages, below the 1,000 at which SQLite checkpoints by itself,
        // and more than the 100 rows after which the background does.
        for (let i = 0; i < 150; i++) yield* sql`INSERT INTO t (name) VALUES (${`n${i}`})`
        const inWalOnly = rowsInFile()
        let inFile = inWalOnly
        for (let waited = 0; inFile < 150 && waited < 5_000; waited += 50) {
          yield* Effect.sleep("50 millis")
          inFile = rowsInFile()
        }
        return { inWalOnly, inFile, throughConnection: (yield* names(sql)).length }
      }).pipe(Effect.scoped, Effect.provide(SqliteConnection.layer(file, driver)))
    )
    expect(seen.inWalOnly).toBeLessThan(150)
    expect(seen).toMatchObject({ inFile: 150, throughConnection: 150 })
  })
})
