// The callback rates' targets from rounds: each round measures the mock's backlog, raw signing and
// the bare deliverer once, close together, and the ratios are taken within each round before their
// median is. On a shared machine a neighbour's load comes and goes over seconds: a single pair run
// back to back read one tree's ratio to the bare deliverer as 0.60 and 0.78 in two full runs.
import { median } from "./Stats.js"

/** What the bare deliverer gave in one round: its rate, or why it could not run. */
export type BareRound = { readonly perSecond: number } | { readonly skipped: string }

/** One round of the callback rates, each measured once. */
export interface CallbackRound {
  readonly mockPerSecond: number
  readonly rawSignaturesPerSecond: number
  readonly bare: BareRound
}

/** The rounds' medians: the targets' values, and the figures beside them. */
export interface CallbackRatios {
  /** The mock's callbacks/s, median of the rounds. */
  readonly mockPerSecond: number
  /** Median of each round's mock/raw signatures. */
  readonly overRaw: number
  /** Median of each round's mock/bare deliverer; 0 when the bare deliverer did not run in some round. */
  readonly overBare: number
  readonly overBareRounds: ReadonlyArray<number>
  /** The bare deliverer's callbacks/s, median of the rounds it ran in. */
  readonly barePerSecond: number
  /** Why the bare deliverer did not run, from the first round it failed in; undefined when it ran in every round. */
  readonly bareSkipped: string | undefined
}

/**
 * Whether round `round` (from 0) runs the bare deliverer before the mock: they alternate, so that
 * a machine that slows down or speeds up over the suite does not favour either.
 *
 * @example
 * ```ts
 * bareFirst(0) // false: the mock, then the bare deliverer
 * ```
 */
export const bareFirst = (round: number): boolean => round % 2 === 1

/**
 * The targets' values from the rounds: medians of per-round ratios, so one round spoilt by a
 * neighbour moves the value no further than the next round's ratio. A round whose bare deliverer
 * did not run makes its target 0 (missed) with the reason, rather than a median of fewer rounds.
 *
 * @example
 * ```ts
 * const ratios = callbackRatios([{ mockPerSecond: 1700, rawSignaturesPerSecond: 1800, bare: { perSecond: 2900 } }])
 * ratios.overBare // 0.586...
 * ```
 */
export const callbackRatios = (rounds: ReadonlyArray<CallbackRound>): CallbackRatios => {
  if (rounds.length === 0) throw new RangeError("no callback rounds to take ratios of")
  const ran = rounds.flatMap((r) => ("perSecond" in r.bare ? [{ mock: r.mockPerSecond, bare: r.bare.perSecond }] : []))
  const skipped = rounds.flatMap((r) => ("skipped" in r.bare ? [r.bare.skipped] : []))
  const overBareRounds = ran.map((r) => r.mock / r.bare)
  return {
    mockPerSecond: median(rounds.map((r) => r.mockPerSecond)),
    overRaw: median(rounds.map((r) => r.mockPerSecond / r.rawSignaturesPerSecond)),
    overBare: skipped.length === 0 ? median(overBareRounds) : 0,
    overBareRounds,
    barePerSecond: ran.length === 0 ? 0 : median(ran.map((r) => r.bare)),
    bareSkipped: skipped[0]
  }
}
