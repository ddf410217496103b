// The SQL replay guard on real SQLite files and a real (throwaway) PostgreSQL: the shared suite,
// four processes racing, then what is particular to SQL: pruning, table names, failing closed.
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { startPostgres } from "@pc/servers"
import { Effect, Exit, ManagedRuntime, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as ReplaySql from "../src/ReplaySql.js"
import { entryOf } from "./support/replayGuards.js"
import { describeReplayGuard } from "./support/replayGuardSuite.js"
import { sharedGuardHarness } from "./support/sharedGuardHarness.js"

const dir = mkdtempSync(join(tmpdir(), "pc-replay-sql-"))
const postgres = await startPostgres()
afterAll(async () => {
  await postgres.stop()
  rmSync(dir, { recursive: true, force: true })
})

describeReplayGuard("SQL on SQLite", sharedGuardHarness("sqlite", join(dir, "replays.db")))
describeReplayGuard("SQL on PostgreSQL", sharedGuardHarness("postgres", postgres.url))

const TTL_MS = 10 * 60 * 1000

describe("ReplaySql", () => {
  const sqlite = ManagedRuntime.make(SqliteClient.layer({ filename: join(dir, "particular.db") }))
  const pg = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(postgres.url) }))
  afterAll(() => Promise.all([sqlite.dispose(), pg.dispose()]))

  it("deletes expired rows as deliveries arrive, at most once per pruneEveryMs", async () => {
    const count = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM pruned`)
    const guard = await sqlite.runPromise(ReplaySql.make({ table: "pruned", pruneEveryMs: 60_000 }))
    const t0 = 1_800_000_000_000
    for (const key of ["a", "b", "c"]) await sqlite.runPromise(guard.seenBefore(entryOf(key, t0)))
    expect((await sqlite.runPromise(count))[0]!.n).toBe(3)
    // After their expiry, the next delivery prunes all three...
    await sqlite.runPromise(guard.seenBefore(entryOf("d", t0 + TTL_MS)))
    expect((await sqlite.runPromise(count))[0]!.n).toBe(1)
    // ...and the one after that, within the minute, does not sweep again (d is live anyway).
    await sqlite.runPromise(guard.seenBefore(entryOf("e", t0 + TTL_MS + 1000)))
    expect((await sqlite.runPromise(count))[0]!.n).toBe(2)
  })

  it("keys rows by a digest: an eventId of any length fits", async () => {
    const guard = await pg.runPromise(ReplaySql.make({ table: "long_keys" }))
    const key = `78e6ac0e:production:1800000000000:${"e".repeat(10_000)}`
    expect(await pg.runPromise(guard.seenBefore(entryOf(key, Date.now())))).toBe(false)
    expect(await pg.runPromise(guard.seenBefore(entryOf(key, Date.now())))).toBe(true)
  })

  it("refuses a table name that is not a plain identifier, and a bad pruneEveryMs", async () => {
    for (const options of [{ table: "replays; DROP TABLE orders" }, { table: "" }, { pruneEveryMs: -1 }]) {
      const exit = await sqlite.runPromiseExit(ReplaySql.make(options))
      expect(exit).toMatchObject({
        _tag: "Failure",
        cause: { error: { _tag: "ConfigurationError", reason: "InvalidOption" } }
      })
    }
  })

  it("createTable: false expects the table to exist, and fails closed when it does not", async () => {
    const guard = await pg.runPromise(ReplaySql.make({ table: "never_created", createTable: false }))
    const exit = await pg.runPromiseExit(guard.seenBefore(entryOf("x", Date.now())))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(exit).toMatchObject({ cause: { error: { _tag: "SqlError" } } })
  })
})
