// The SQL timing preload of `profile-callbacks --sql` (src/servers/SqlTimingOnSignal.mjs), in a
// real Node process with a real SQLite database: statements prepared before the count starts are
// counted too, nothing is counted outside the signalled span, and each text gets its runs and rows.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { ROOT } from "../src/Servers.js"

const dir = mkdtempSync(join(tmpdir(), "pc-sql-timing-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const preload = new URL("../src/servers/SqlTimingOnSignal.mjs", import.meta.url).pathname

// better-sqlite3 as the mock's bundle resolves it, which is the module the preload wraps.
const script = `
const { createRequire } = require("node:module")
const Database = createRequire(${JSON.stringify(`${ROOT}apps/cli/dist/main.cjs`)})("better-sqlite3")
const db = new Database(":memory:")
db.prepare("CREATE TABLE t (x INTEGER)").run()
const insert = db.prepare("INSERT INTO t VALUES (?)")
insert.run(0)
process.emit("SIGUSR2")
for (let i = 1; i <= 5; i++) insert.run(i)
const rows = db.prepare("SELECT   x\\n FROM t").all()
if (rows.length !== 6) throw new Error("expected 6 rows")
process.emit("SIGUSR2")
insert.run(99)
`

describe("SqlTimingOnSignal", () => {
  it("counts each statement's runs, rows and time between the two signals, by its text", () => {
    const out = join(dir, "timing.json")
    const run = spawnSync(process.execPath, ["--import", preload, "-e", script], {
      env: { ...process.env, PC_BENCH_SQL_TIMING: out },
      encoding: "utf8"
    })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    const timings = new Map(
      (JSON.parse(readFileSync(out, "utf8")) as Array<[string, number, number, number]>).map(([text, ...rest]) => [
        text,
        rest
      ])
    )
    // The CREATE and the first and last inserts ran outside the span; whitespace is folded.
    expect([...timings.keys()].sort()).toEqual(["INSERT INTO t VALUES (?)", "SELECT x FROM t"])
    const [insertRuns, insertMs, insertRows] = timings.get("INSERT INTO t VALUES (?)")!
    expect([insertRuns, insertRows]).toEqual([5, 5])
    expect(insertMs).toBeGreaterThan(0)
    const [selectRuns, , selectRows] = timings.get("SELECT x FROM t")!
    expect([selectRuns, selectRows]).toEqual([1, 6])
  })

  it("wraps nothing in a process without the variable", () => {
    const check = `${script.replaceAll('process.emit("SIGUSR2")', "")}
console.log(JSON.stringify([Object.hasOwn(insert, "run"), Object.hasOwn(db.prepare("SELECT 1"), "all")]))`
    const { PC_BENCH_SQL_TIMING: _, ...env } = process.env
    const bare = spawnSync(process.execPath, ["--import", preload, "-e", check], { env, encoding: "utf8" })
    expect(bare.status).toBe(0)
    expect(JSON.parse(bare.stdout)).toEqual([false, false])
    const timed = spawnSync(process.execPath, ["--import", preload, "-e", check], {
      env: { ...env, PC_BENCH_SQL_TIMING: join(dir, "unused.json") },
      encoding: "utf8"
    })
    expect(JSON.parse(timed.stdout)).toEqual([true, true])
  })
})
