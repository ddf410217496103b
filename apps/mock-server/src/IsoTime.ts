/**
 * The one way the mock writes a time: ISO 8601 in UTC with milliseconds (`2025-11-21T09:30:00.000Z`),
 * in stored rows, callback bodies, the developer menu and logs alike.
 */

/**
 * Writes epoch milliseconds as an ISO 8601 UTC timestamp.
 *
 * @example
 * ```ts
 * isoTime(0) // "1970-01-01T00:00:00.000Z"
 * ```
 */
export const isoTime = (ms: number): string => new Date(ms).toISOString()

const DAY_MS = 86_400_000
let day = { from: Number.NaN, text: "" }

/**
 * The UTC calendar day of epoch milliseconds as `YYYYMMDD` (the date part of an orderSn).
 *
 * @example
 * ```ts
 * isoDay(0) // "19700101"
 * ```
 */
export const isoDay = (ms: number): string => {
  // Every create asks for today's: the text is kept for the day it names.
  if (!(ms >= day.from && ms < day.from + DAY_MS)) {
    const from = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS)
    day = { from, text: isoTime(from).slice(0, 10).replaceAll("-", "") }
  }
  return day.text
}
