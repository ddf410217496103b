// The SQL replay guard on real SQLite files, a real (throwaway) PostgreSQL and a real (throwaway)
// MariaDB for the MySQL dialect: the shared suite, four processes racing, then what is particular to
// SQL, on every dialect: pruning, table names, failing closed.
import { MysqlClient } from "@effect/sql-mysql2"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { startMariadb, startPostgres } from "@pc/servers"
import { Effect, Exit, ManagedRuntime, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as ReplaySql from "../src/ReplaySql.js"
import { entryOf } from "./support/replayGuards.js"
import { describeReplayGuard } from "./support/replayGuardSuite.js"
import { sharedGuardHarness } from "./support/sharedGuardHarness.js"

const dir = mkdtempSync(join(tmpdir(), "pc-replay-sql-"))
const [postgres, mariadb] = await Promise.all([startPostgres(), startMariadb()])
afterAll(async () => {
  await Promise.all([postgres.stop(), mariadb.stop()])
  rmSync(dir, { recursive: true, force: true })
})

/**
 * Whether @effect/sql-sqlite-node's better-sqlite3 loads here: its addon is built for the Node that
 * installed the workspace, and the root test runs this suite again on other Nodes, where SQLite's
 * cases are left to that first run.
 */
const sqliteLoads = (() => {
  try {
    const Database = createRequire(createRequire(import.meta.url).resolve("@effect/sql-sqlite-node"))(
      "better-sqlite3"
    ) as new (
      file: string
    ) => { close(): void }
    new Database(":memory:").close()
    return true
  } catch {
    return false
  }
})()

if (sqliteLoads) describeReplayGuard("SQL on SQLite", sharedGuardHarness("sqlite", join(dir, "replays.db")))
describeReplayGuard("SQL on PostgreSQL", sharedGuardHarness("postgres", postgres.url))
describeReplayGuard("SQL on MariaDB (MySQL dialect)", sharedGuardHarness("mysql", mariadb.url))

const TTL_MS = 10 * 60 * 1000

const dialects = [
  ...(sqliteLoads
    ? [{ name: "SQLite", layer: () => SqliteClient.layer({ filename: join(dir, "particular.db") }) }]
    : []),
  { name: "PostgreSQL", layer: () => PgClient.layer({ url: Redacted.make(postgres.url) }) },
  { name: "MariaDB", layer: () => MysqlClient.layer({ url: Redacted.make(mariadb.url) }) }
]

describe.each(dialects)("ReplaySql on $name", ({ layer }) => {
  const db = ManagedRuntime.make(layer())
  afterAll(() => db.dispose())

  it("deletes expired rows as deliveries arrive, at most once per pruneEveryMs", async () => {
    const count = Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM pruned`
    ).pipe(Effect.map(([row]) => Number(row!.n)))
    const guard = await db.runPromise(ReplaySql.make({ table: "pruned", pruneEveryMs: 60_000 }))
    const t0 = 1_800_000_000_000
    for (const key of ["a", "b", "c"]) await db.runPromise(guard.seenBefore(entryOf(key, t0)))
    expect(await db.runPromise(count)).toBe(3)
    // After their expiry, the next delivery prunes all three...
    await db.runPromise(guard.seenBefore(entryOf("d", t0 + TTL_MS)))
    expect(await db.runPromise(count)).toBe(1)
    // ...and the one after that, within the minute, does not sweep again (d is live anyway).
    await db.runPromise(guard.seenBefore(entryOf("e", t0 + TTL_MS + 1000)))
    expect(await db.runPromise(count)).toBe(2)
  })

  it("keys rows by a digest: an eventId of any length fits", async () => {
    const guard = await db.runPromise(ReplaySql.make({ table: "long_keys" }))
    const key = `78e6ac0e:production:1800000000000:${"e".repeat(10_000)}`
    expect(await db.runPromise(guard.seenBefore(entryOf(key, Date.now())))).toBe(false)
    expect(await db.runPromise(guard.seenBefore(entryOf(key, Date.now())))).toBe(true)
  })

  it("takes the longest table name it allows, and refuses one longer", async () => {
    // The index is named after the table: both must fit every dialect's identifier limit.
    const longest = `t${"x".repeat(51)}`
    const guard = await db.runPromise(ReplaySql.make({ table: longest }))
    expect(await db.runPromise(guard.seenBefore(entryOf("long", Date.now())))).toBe(false)
    const exit = await db.runPromiseExit(ReplaySql.make({ table: `${longest}x` }))
    expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "ConfigurationError", option: "table" } } })
  })

  it("refuses a table name that is not a plain identifier, and a bad pruneEveryMs", async () => {
    for (const options of [{ table: "replays; DROP TABLE orders" }, { table: "" }, { pruneEveryMs: -1 }]) {
      const exit = await db.runPromiseExit(ReplaySql.make(options))
      expect(exit).toMatchObject({
        _tag: "Failure",
        cause: { error: { _tag: "ConfigurationError", reason: "InvalidOption" } }
      })
    }
  })

  it("createTable: false expects the table to exist, and fails closed when it does not", async () => {
    const guard = await db.runPromise(ReplaySql.make({ table: "never_created", createTable: false }))
    const exit = await db.runPromiseExit(guard.seenBefore(entryOf("x", Date.now())))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(exit).toMatchObject({ cause: { error: { _tag: "SqlError" } } })
  })
})
