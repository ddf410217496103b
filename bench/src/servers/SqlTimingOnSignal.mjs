// Preloaded by `pnpm --filter @pc/bench profile-callbacks --sql` into the mock (`node --import <this>`):
// every SQLite statement the mock prepares (better-sqlite3 or node:sqlite, resolved as the mock's
// bundle resolves them) is timed while measuring, by its text. The first SIGUSR2 starts the count,
// the second writes it to $PC_BENCH_SQL_TIMING as JSON: [[text, runs, milliseconds, rows], ...].
// Statements run on the main thread, synchronously, so their wall time is the main thread's time.
import { renameSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"

const out = process.env.PC_BENCH_SQL_TIMING
if (out !== undefined) {
  const require = createRequire(new URL("../../../apps/cli/dist/main.cjs", import.meta.url))
  /** By statement text: runs, milliseconds, rows (read, or changed by a statement without rows). */
  const byText = new Map()
  let counting = false
  const timed = (statement, text) => {
    for (const method of ["all", "run", "get"]) {
      const original = statement[method]
      if (typeof original !== "function") continue
      statement[method] = function (...params) {
        if (!counting) return original.apply(this, params)
        const start = process.hrtime.bigint()
        const result = original.apply(this, params)
        const ms = Number(process.hrtime.bigint() - start) / 1e6
        const entry = byText.get(text) ?? [0, 0, 0]
        entry[0] += 1
        entry[1] += ms
        entry[2] += Array.isArray(result) ? result.length : Number(result?.changes ?? (result === undefined ? 0 : 1))
        byText.set(text, entry)
        return result
      }
    }
    return statement
  }
  const wrapPrepare = (prototype) => {
    const prepare = prototype.prepare
    prototype.prepare = function (sql, ...rest) {
      return timed(prepare.call(this, sql, ...rest), sql.replace(/\s+/g, " ").trim())
    }
  }
  try {
    wrapPrepare(require("better-sqlite3").prototype)
  } catch {
    // Not installed: node:sqlite is the driver then.
  }
  try {
    wrapPrepare(require("node:sqlite").DatabaseSync.prototype)
  } catch {
    // This Node has no node:sqlite.
  }
  process.on("SIGUSR2", () => {
    if (!counting) {
      counting = true
      byText.clear()
      return
    }
    counting = false
    const rows = [...byText].map(([text, [runs, ms, count]]) => [text, runs, ms, count])
    writeFileSync(`${out}.partial`, JSON.stringify(rows))
    renameSync(`${out}.partial`, out)
  })
}
