/**
 * The one way the mock writes a time: ISO 8601 in UTC with milliseconds (`2025-11-21T09:30:00.000Z`),
 * in stored rows, callback bodies, the developer menu and logs alike.
 */

const DAY_MS = 86_400_000

/** The day last written: its first millisecond and its ISO date with the `T`. */
let day = { from: Number.NaN, date: "" }

/**
 * The day of `ms`, kept for the next call when its start is a whole millisecond (for a fraction of
 * a millisecond the arithmetic can round it off a day's start: such a day is never kept).
 */
const dayOf = (ms: number) => {
  if (ms >= day.from && ms < day.from + DAY_MS) return day
  const from = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS)
  const text = new Date(from).toISOString()
  const date = text.slice(0, text.indexOf("T") + 1)
  const found = { from, date }
  if (Number.isSafeInteger(from)) day = found
  return found
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`)
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`)

/**
 * Writes epoch milliseconds as an ISO 8601 UTC timestamp: what `Date.prototype.toISOString` writes
 * (a RangeError outside Date's range), the time of day worked out from the kept day, since every
 * create writes one.
 *
 * @example
 * ```ts
 * isoTime(0) // "1970-01-01T00:00:00.000Z"
 * ```
 */
export const isoTime = (ms: number): string => {
  // Anything unusual (a fraction, NaN, outside Date's range) is Date's to write or refuse.
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > 8.64e15) return new Date(ms).toISOString()
  const { from, date } = dayOf(ms)
  let rest = ms - from
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  return `${date}${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}Z`
}

/**
 * The UTC instant of epoch milliseconds as `YYYYMMDDHHmmssSSS`: {@link isoTime}'s digits (the time
 * part of an orderSn).
 *
 * @example
 * ```ts
 * compactTime(0) // "19700101000000000"
 * ```
 */
export const compactTime = (ms: number): string => {
  const iso = isoTime(ms)
  // Years 0 to 9999 (`YYYY-MM-DDTHH:mm:ss.SSSZ`) by slices, as every create asks; others (`+010000-`) by their digits.
  if (iso.length !== 24) return iso.replace(NOT_DIGITS, "")
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}${iso.slice(20, 23)}`
}
const NOT_DIGITS = /\D/g
