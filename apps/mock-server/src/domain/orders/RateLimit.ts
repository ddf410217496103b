/**
 * The create-order rate limit (`--rate-limit-per-minute`): a fixed one-minute window per appKey,
 * counted after authentication, answered with rateLimited and `Retry-After`.
 */
import { ApiError } from "../ApiError.js"

const WINDOW_MS = 60_000

/**
 * A limiter allowing `perMinute` requests per appKey in each clock minute; `undefined` allows
 * everything. The returned check counts the request and gives back `undefined`, or the rateLimited
 * {@link ApiError} carrying `Retry-After` (the seconds until the window ends). A plain function:
 * the create-order flow runs its checks without a fiber step each.
 *
 * @example
 * ```ts
 * const limit = makeRateLimiter(3)
 * const refused = limit(appKey, Date.now()) // undefined, or ApiError rateLimited
 * ```
 */
export const makeRateLimiter = (perMinute: number | undefined) => {
  // One entry per appKey that passed authentication, so the map is bounded by the merchants.
  const windows = new Map<string, { start: number; count: number }>()
  return (appKey: string, nowMs: number): ApiError | undefined => {
    if (perMinute === undefined) return undefined
    const windowStart = nowMs - (nowMs % WINDOW_MS)
    const current = windows.get(appKey)
    const entry = current !== undefined && current.start === windowStart ? current : { start: windowStart, count: 0 }
    entry.count++
    windows.set(appKey, entry)
    if (entry.count <= perMinute) return undefined
    const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - nowMs) / 1000))
    return new ApiError({
      code: "rateLimited",
      msg: `more than ${perMinute} requests per minute for this appKey; retry after ${retryAfter} s`,
      headers: { "retry-after": String(retryAfter) }
    })
  }
}
