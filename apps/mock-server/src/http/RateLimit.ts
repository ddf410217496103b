/**
 * The create-order rate limit (`--rate-limit-per-minute`): a fixed one-minute window per appKey,
 * counted after authentication, answered with rateLimited and `Retry-After`.
 */
import { Effect } from "effect"
import { ApiError } from "./Envelope.js"

const WINDOW_MS = 60_000

/**
 * A limiter allowing `perMinute` requests per appKey in each clock minute; `undefined` allows
 * everything. The returned check fails with a rateLimited {@link ApiError} carrying `Retry-After`
 * (the seconds until the window ends).
 *
 * @example
 * ```ts
 * const limit = makeRateLimiter(3)
 * yield* limit(appKey, yield* Clock.currentTimeMillis)
 * ```
 */
export const makeRateLimiter = (perMinute: number | undefined) => {
  // One entry per appKey that passed authentication, so the map is bounded by the merchants.
  const windows = new Map<string, { start: number; count: number }>()
  return (appKey: string, nowMs: number): Effect.Effect<void, ApiError> => {
    if (perMinute === undefined) return Effect.void
    const windowStart = nowMs - (nowMs % WINDOW_MS)
    const current = windows.get(appKey)
    const entry = current !== undefined && current.start === windowStart ? current : { start: windowStart, count: 0 }
    entry.count++
    windows.set(appKey, entry)
    if (entry.count <= perMinute) return Effect.void
    const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - nowMs) / 1000))
    return Effect.fail(
      new ApiError({
        code: "rateLimited",
        msg: `more than ${perMinute} requests per minute for this appKey; retry after ${retryAfter} s`,
        headers: { "retry-after": String(retryAfter) }
      })
    )
  }
}
