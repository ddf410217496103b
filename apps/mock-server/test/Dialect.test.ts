// store/Dialect.ts's wholeNumber: the number is part of the statement's text (no parameter, so
// SQLite does not prepare a statement with a LIMIT again on each run) and it limits as a bound one
// would; anything but a whole number is refused before it reaches the database.
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { wholeNumber } from "../src/store/Dialect.js"
import * as SqliteConnection from "../src/store/SqliteConnection.js"

const dir = mkdtempSync(join(tmpdir(), "dialect-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(Effect.provide(effect, SqliteConnection.layer(join(dir, "db.sqlite"))))

describe("wholeNumber", () => {
  it("writes the number into the text, and the LIMIT holds", async () => {
    const { compiled, rows } = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE t (n INTEGER)`
        yield* sql`INSERT INTO t (n) VALUES (1), (2), (3), (4), (5)`
        const statement = sql<{ n: number }>`SELECT n FROM t ORDER BY n LIMIT ${wholeNumber(sql, 3)}`
        return { compiled: statement.compile(), rows: yield* statement }
      })
    )
    expect(compiled).toEqual(["SELECT n FROM t ORDER BY n LIMIT 3", []])
    expect(rows.map((row) => row.n)).toEqual([1, 2, 3])
  })

  it("refuses what is not a whole number from 0 to 2^53 - 1", async () => {
    for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      await expect(
        run(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.sync(() => wholeNumber(sql, bad))))
      ).rejects.toThrow(`not a whole number for SQL text: ${bad}`)
    }
    const zero = await run(Effect.map(SqlClient.SqlClient, (sql) => sql`LIMIT ${wholeNumber(sql, 0)}`.compile()))
    expect(zero).toEqual(["LIMIT 0", []])
  })
})
