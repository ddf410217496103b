// What `--sql` of the profiles prints: each SQLite statement the mock ran while measured, from the
// count servers/SqlTimingOnSignal.mjs writes (started and stopped by SIGUSR2, with the profiler's).
import { readFileSync } from "node:fs"
import { waitForFile } from "./WrittenFile.js"

/** The preload that counts the statements (`node --import` it into the mock, with PC_BENCH_SQL_TIMING=<file>). */
export const SQL_TIMING_PRELOAD = new URL("./servers/SqlTimingOnSignal.mjs", import.meta.url).pathname

/** One statement's count: its text (whitespace folded), runs, milliseconds in all, rows in all. */
export type SqlTiming = readonly [text: string, runs: number, ms: number, rows: number]

/** The count the preload writes to `file` after the second signal, waited for up to 30 s. */
export const readSqlTiming = async (file: string): Promise<ReadonlyArray<SqlTiming>> => {
  await waitForFile(file, "SQL timing")
  return JSON.parse(readFileSync(file, "utf8")) as ReadonlyArray<SqlTiming>
}

/**
 * Each statement's main-thread time per unit of work (`per`: a callback, a create), largest first,
 * and, given the main thread's CPU seconds over the same part, their share of it.
 */
export const printSqlTiming = (
  timings: ReadonlyArray<SqlTiming>,
  units: number,
  per: string,
  mainSeconds?: number
): void => {
  const totalMs = timings.reduce((sum, [, , ms]) => sum + ms, 0)
  const share =
    mainSeconds === undefined
      ? ""
      : `, ${((100 * totalMs) / (1000 * mainSeconds)).toFixed(0)}% of the main thread's CPU`
  console.log(`SQLite statements: ${((1000 * totalMs) / units).toFixed(1)} µs per ${per}${share}; by statement:`)
  for (const [text, runs, ms, rows] of [...timings].sort((a, b) => b[2] - a[2]).slice(0, 15))
    console.log(
      `  ${((1000 * ms) / units).toFixed(1).padStart(6)} µs/${per}  ${String(runs).padStart(7)} runs, ` +
        `${(ms / runs).toFixed(3)} ms and ${(rows / runs).toFixed(1)} rows each  ${text.slice(0, 90)}`
    )
}
