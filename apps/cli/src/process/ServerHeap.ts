/**
 * The mock's heap, kept small while it serves. Under 32 connections V8 left alone took the mock to
 * 175-187 MB of RSS: it doubles the new space up to its default maximum (two 16 MB semi-spaces on
 * 64-bit Node 20) and keeps it, and it lets the old generation grow up to four times what survived
 * the last full GC (about 20 MB here) before collecting it, so the promoted garbage of finished
 * requests piles up between full GCs. The mock now keeps the new space start-up grew it to (two
 * 8 MB semi-spaces) and collects the old generation at 1.5 times its live size: 131-134 MB under
 * the same load (machine load 6-8), for about 0.04 ms more GC per request (more, shorter GCs).
 *
 * `--max-semi-space-size` would cap the new space, but V8 reads it only when the process starts,
 * and `pc mock` is started as `node …/bin.js mock` (npx, pnpm, the bench) where no flag of ours can
 * be put (and a flag set before the bundle is compiled would make V8 refuse the code cache, see
 * CodeCache.ts); the growth factor and the heap growing percent, though, are read at each growth.
 *
 * From V8 13 (Node 24) the new space also grows past its capacity while a full GC marks: with
 * `--separate-gc-phases`, on by default there, V8 runs no scavenge during incremental marking and
 * gives each allocation that finds the new space full a fresh 256 KB page instead, until the full
 * GC ends. With the old generation collected at 1.5 times its live size full GCs come often, and
 * in ServerHeap.test.ts's server-like allocation that took a new space whose capacity stayed at two
 * 4 MB semi-spaces to 9.25-9.5 MB.
 * The mock turns that flag off while it serves, as V8 12 (Node 20 and 22) has it: a full GC's
 * marking is then interleaved with scavenges, and the new space stays within its capacity.
 * Flags given on the command line or in NODE_OPTIONS win: then nothing is changed.
 */
import { PerformanceObserver } from "node:perf_hooks"
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"

/** V8's own growth factor of the new space (`--semi-space-growth-factor`). */
const V8_GROWTH_FACTOR = 2

/**
 * V8's own `--separate-gc-phases`: off up to V8 12 (Node 20 and 22), on from V8 13 (Node 24). Given
 * back as it was when the mock stops, since the code cache written at exit is checked against it.
 */
const V8_SEPARATE_GC_PHASES = Number(process.versions.v8.split(".")[0]) >= 13

/**
 * Whether the user chose the heap's sizing flags, or the young generation's collector (MinorMS,
 * `--minor-ms`, needs separate GC phases), themselves.
 */
const chosenByUser = (): boolean =>
  [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((flag) =>
    /--(max|min)[-_]semi[-_]space[-_]size|--semi[-_]space[-_]growth[-_]factor|--heap[-_]growing[-_]percent|--(no[-_])?separate[-_]gc[-_]phases|--(no[-_])?minor[-_]ms\b/.test(
      flag
    )
  )

const newSpaceBytes = (): number =>
  getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0

/**
 * Limits the heap of a long-running server: the new space grows up to `maxSemiSpaceMb` per
 * semi-space and no further (after each GC, growth is switched off at the cap and on again below
 * it, since V8 shrinks the new space when the process idles; on V8 13 and later, scavenges run
 * during a full GC's marking again, as they do on V8 12), and the old generation may grow to
 * `1 + heapGrowingPercent / 100` times what survived the last full GC. Does nothing when the user
 * set the heap's flags. Returns a function that stops it and gives V8 its defaults back.
 *
 * @example
 * ```ts
 * const release = limitServerHeap({ maxSemiSpaceMb: 4, heapGrowingPercent: 50 })
 * // ... serve ...
 * release()
 * ```
 */
export const limitServerHeap = (options: {
  readonly maxSemiSpaceMb: number
  readonly heapGrowingPercent: number
}): (() => void) => {
  if (chosenByUser()) return () => {}
  setFlagsFromString(`--heap-growing-percent=${options.heapGrowingPercent}`)
  // Scavenges during a full GC's marking again, so that the new space keeps to its capacity then too.
  if (V8_SEPARATE_GC_PHASES) setFlagsFromString("--no-separate-gc-phases")
  const capBytes = 2 * options.maxSemiSpaceMb * 1024 * 1024
  let growing = true
  const steer = () => {
    const grow = newSpaceBytes() < capBytes
    if (grow === growing) return
    growing = grow
    setFlagsFromString(`--semi-space-growth-factor=${grow ? V8_GROWTH_FACTOR : 1}`)
  }
  steer()
  const observer = new PerformanceObserver(steer)
  observer.observe({ entryTypes: ["gc"] })
  return () => {
    observer.disconnect()
    // Back to V8's defaults, which the code cache written at exit is checked against (CodeCache.ts).
    setFlagsFromString("--heap-growing-percent=0")
    setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`)
    if (V8_SEPARATE_GC_PHASES) setFlagsFromString("--separate-gc-phases")
  }
}
