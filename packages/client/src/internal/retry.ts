// The arithmetic of the retry loop: exponential backoff with jitter, and Retry-After.

// Only a date that names a weekday or month is an HTTP date; Date.parse is lenient otherwise.
const httpDate = (text: string): number | undefined => {
  if (!/[A-Za-z]{3}/.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isFinite(at) ? at : undefined
}

/**
 * Parses `Retry-After` (RFC 9110 10.2.3): delay-seconds, or an HTTP date. Returns milliseconds to
 * wait (0 for a date in the past), or `undefined` when absent or unreadable. An HTTP date is a time
 * on the server's clock: it is measured against the response's `Date` header (`serverDate`) when
 * there is one, and against `nowMs` (the local clock) only otherwise, so that a local clock that is
 * off neither shortens nor stretches the wait.
 */
export const parseRetryAfter = (
  value: string | undefined,
  nowMs: number,
  serverDate?: string | undefined
): number | undefined => {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^[0-9]+$/.test(text)) {
    const seconds = Number(text)
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined
  }
  const at = httpDate(text)
  if (at === undefined) return undefined
  const serverNow = serverDate === undefined ? undefined : httpDate(serverDate.trim())
  return Math.max(0, at - (serverNow ?? nowMs))
}

/** The delays of the retry loop, in milliseconds. */
export interface Backoff {
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly jitter: boolean
}

/**
 * The wait before retry number `retry` (1 for the first retry): `base * 2^(retry-1)` capped at
 * `max`, and with jitter a uniformly random point in its upper half, so that clients failing
 * together do not come back together (`random` is in [0, 1)).
 */
export const backoffDelay = (backoff: Backoff, retry: number, random: number): number => {
  const exponential = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** Math.max(0, retry - 1))
  return backoff.jitter ? Math.round(exponential / 2 + (random * exponential) / 2) : exponential
}
