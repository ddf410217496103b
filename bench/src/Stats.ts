// Order statistics for the bench: medians of alternating rounds, percentiles of latencies, and the
// spread that says whether a ratio is stable enough to be believed.

/** The middle value (the lower middle of an even count); NaN for no values. */
export const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)

/** The value at quantile `q` (0..1) by the nearest-rank rule; NaN for no values. */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** Smallest and largest value, and their distance relative to the median. */
export const spread = (values: ReadonlyArray<number>) => {
  const min = Math.min(...values)
  const max = Math.max(...values)
  return { min, max, relative: (max - min) / median(values) }
}

/** Rounds to `digits` decimals, for the results files. */
export const round = (value: number, digits = 3): number => {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}
