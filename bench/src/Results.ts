// What a run reports: every target as `{ value, target, met }` beside the figures it was computed
// from, written to `results/latest.json` and a readable `RESULTS.md`, and printed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { LoadSummary, MachineFacts } from "./Machine.js"
import { round } from "./Stats.js"

export interface Target {
  readonly value: number
  readonly target: number
  readonly met: boolean
  /** `atLeast`: value >= target; `atMost`: value <= target. */
  readonly rule: "atLeast" | "atMost"
  readonly unit: string
  /** What the value is, in a sentence (how it was measured, what it is relative to). */
  readonly note: string
}

/**
 * A target judged on the value as written (rounded), so that the results never show a value equal to
 * its target as missed (0.8996 written as 0.9 against >= 0.9).
 */
const judged = (value: number, target: number, rule: Target["rule"], unit: string, note: string): Target => {
  const written = round(value)
  const met = Number.isFinite(written) && (rule === "atLeast" ? written >= target : written <= target)
  return { value: written, target, met, rule, unit, note }
}

/** A value that must be at least `target`. */
export const atLeast = (value: number, target: number, unit: string, note: string): Target =>
  judged(value, target, "atLeast", unit, note)

/** A value that must be at most `target`. */
export const atMost = (value: number, target: number, unit: string, note: string): Target =>
  judged(value, target, "atMost", unit, note)

/** One benchmark's outcome: its targets and the raw figures behind them. */
export interface SuiteResult {
  readonly targets: Readonly<Record<string, Target>>
  readonly figures: Readonly<Record<string, unknown>>
}

export interface RunResult {
  readonly machine: MachineFacts
  readonly load: LoadSummary
  readonly mode: "full" | "smoke"
  readonly durationSeconds: number
  readonly targets: Readonly<Record<string, Target>>
  readonly figures: Readonly<Record<string, unknown>>
  readonly missed: ReadonlyArray<string>
}

/** Merges the suites' outcomes (names are prefixed by suite) into one run. */
export const combine = (
  suites: Readonly<Record<string, SuiteResult>>,
  context: Pick<RunResult, "machine" | "load" | "mode" | "durationSeconds">
): RunResult => {
  const targets: Record<string, Target> = {}
  const figures: Record<string, unknown> = {}
  for (const [suite, result] of Object.entries(suites)) {
    for (const [name, target] of Object.entries(result.targets)) targets[`${suite}: ${name}`] = target
    figures[suite] = result.figures
  }
  const missed = Object.entries(targets)
    .filter(([, t]) => !t.met)
    .map(([name]) => name)
  return { ...context, targets, figures, missed }
}

const sign = (t: Target) => (t.rule === "atLeast" ? ">=" : "<=")

/** The targets as aligned text lines: name, value, target, verdict. */
export const targetLines = (run: RunResult): ReadonlyArray<string> => {
  const width = Math.max(...Object.keys(run.targets).map((name) => name.length))
  return Object.entries(run.targets).map(
    ([name, t]) =>
      `${name.padEnd(width)}  ${String(t.value).padStart(10)} ${t.unit.padEnd(6)} target ${sign(t)} ${t.target}  ${t.met ? "met" : "MISSED"}`
  )
}

const markdown = (run: RunResult): string => {
  const rows = Object.entries(run.targets).map(
    ([name, t]) =>
      `| ${name} | ${t.value} ${t.unit} | ${sign(t)} ${t.target} | ${t.met ? "met" : "**missed**"} | ${t.note} |`
  )
  const m = run.machine
  return [
    "# Bench results",
    "",
    `Written by \`pnpm bench\` (${run.mode} run) on ${m.date}, in ${run.durationSeconds} s. Every figure is measured`,
    "in the same run as its baseline; the machine is shared, so read the ratios, not the absolute numbers.",
    "",
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryMb} MB, ${m.platform}`,
    `- Node ${m.node}, OpenSSL ${m.openssl}`,
    `- Load average (1 min) during the run: min ${run.load.min}, mean ${run.load.mean}, max ${run.load.max}`,
    `- Missed: ${run.missed.length === 0 ? "none" : run.missed.join("; ")}`,
    "",
    "| target | value | target | verdict | what |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    "Figures behind the targets are in `results/latest.json` (`figures`).",
    ""
  ].join("\n")
}

/**
 * The heading from which `RESULTS.md` is written by hand (what the code's comments no longer hold:
 * the measurements behind a design choice); a run rewrites the tables above it and keeps the rest.
 */
export const KEPT_NOTES_HEADING = "## Notes kept across runs"

/** What of an earlier `RESULTS.md` a run keeps: everything from {@link KEPT_NOTES_HEADING} on, or nothing. */
export const keptNotes = (earlier: string): string => {
  const at = earlier.indexOf(`\n${KEPT_NOTES_HEADING}\n`)
  return at < 0 ? "" : earlier.slice(at + 1)
}

/** Writes `latest.json` and `RESULTS.md` (the latter one level above `dir`, beside the bench's README). */
export const writeResults = (run: RunResult, dir: string, markdownFile: string): void => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "latest.json"), `${JSON.stringify(run, null, 2)}\n`)
  const notes = existsSync(markdownFile) ? keptNotes(readFileSync(markdownFile, "utf8")) : ""
  writeFileSync(markdownFile, notes === "" ? markdown(run) : `${markdown(run)}\n${notes}`)
}
