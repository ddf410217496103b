/**
 * Replay protection for callbacks (spec 6: "record processed timestamps to guard against replay"):
 * an interface that records each verified delivery and answers whether it was seen before, and an
 * in-memory store with a time to live. Plug in Redis or a database table for several processes.
 *
 * @since 0.1.0
 */
import { Timestamp } from "@pc/core"
import type * as Effect from "effect/Effect"

/**
 * One verified callback delivery, as the guard sees it.
 *
 * `key` identifies the delivery: environment, key version, `X-R-Ts` and the signature. The service
 * signs each delivery attempt afresh, so a genuine redelivery (after your endpoint failed) has a new
 * key and passes, while a captured request sent again is refused. Guard on `eventId` instead if you
 * want to refuse redeliveries too (usually you want idempotent processing on `eventId` instead).
 *
 * @example
 * ```ts
 * import type { ReplayGuard } from "@pc/client"
 *
 * const describe = (entry: ReplayGuard.ReplayEntry) => `${entry.eventId} at ${entry.timestamp}`
 * ```
 */
export interface ReplayEntry {
  /** `environment:keyVersion:timestamp:signature`, unique per delivery attempt. */
  readonly key: string
  readonly environment: string
  readonly keyVersion: number
  /** `X-R-Ts`, milliseconds. */
  readonly timestamp: number
  /** `X-R-Signature` as sent (Base64). */
  readonly signature: string
  /** The event's `eventId` (the same for every redelivery of one event). */
  readonly eventId: string
  /** The verifier's clock when the delivery arrived, milliseconds. */
  readonly receivedAt: number
  /**
   * When the entry may be forgotten, milliseconds: at least until the timestamp leaves the
   * 5 minute window, after which the window check alone refuses the delivery.
   */
  readonly expiresAt: number
}

/**
 * Records verified deliveries and answers whether one was seen before. Implement it over any
 * store with an atomic "set if absent with expiry" (Redis `SET key 1 NX PXAT expiresAt`, an
 * `INSERT ... ON CONFLICT DO NOTHING` on a table keyed by `key`). A rejection or failure refuses the
 * callback (`ReplayGuardFailed`): the guard fails closed.
 *
 * @example
 * ```ts
 * import type { ReplayGuard } from "@pc/client"
 *
 * const redisGuard = (redis: Redis): ReplayGuard.ReplayGuard => ({
 *   seenBefore: async (entry) => (await redis.set(`pc:cb:${entry.key}`, "1", "PXAT", entry.expiresAt, "NX")) === null
 * })
 * ```
 */
export interface ReplayGuard {
  /** Records `entry` and answers `true` when it had already been recorded (a replay), `false` the first time. */
  readonly seenBefore: (entry: ReplayEntry) => boolean | PromiseLike<boolean> | Effect.Effect<boolean, unknown>
}

/**
 * Options of {@link memory}.
 *
 * @example
 * ```ts
 * import type { ReplayGuard } from "@pc/client"
 *
 * const options: ReplayGuard.MemoryOptions = { ttlMs: 15 * 60 * 1000, maxEntries: 50_000 }
 * ```
 */
export interface MemoryOptions {
  /** How long an entry is kept after it arrived; at least the 5 minute window. Default 10 minutes. */
  readonly ttlMs?: number | undefined
  /** The most entries kept; the oldest are dropped beyond it. Default 100 000. */
  readonly maxEntries?: number | undefined
}

/**
 * An in-memory replay guard for one process: entries expire after `ttlMs` (and never before their
 * timestamp leaves the window). Use a shared store when several processes receive callbacks.
 *
 * Throws a `RangeError` for a `ttlMs` under the 5 minute window or a `maxEntries` under 1.
 *
 * @example
 * ```ts
 * import { ReplayGuard } from "@pc/client"
 *
 * const guard = ReplayGuard.memory({ ttlMs: 10 * 60 * 1000 })
 * ```
 */
export const memory = (options: MemoryOptions = {}): ReplayGuard & { readonly size: () => number } => {
  const ttlMs = options.ttlMs ?? 2 * Timestamp.WINDOW_MS
  const maxEntries = options.maxEntries ?? 100_000
  if (!(ttlMs >= Timestamp.WINDOW_MS)) {
    throw new RangeError(
      `ttlMs must be at least the ${Timestamp.WINDOW_MS} ms window, or replays could pass after expiry`
    )
  }
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
    throw new RangeError("maxEntries must be a whole number >= 1")
  const entries = new Map<string, number>()
  let calls = 0
  const sweep = (now: number) => {
    for (const [key, expiresAt] of entries) if (expiresAt <= now) entries.delete(key)
  }
  return {
    size: () => entries.size,
    seenBefore: (entry) => {
      const now = entry.receivedAt
      const seen = entries.get(entry.key)
      if (seen !== undefined && seen > now) return true
      // Sweep now and then rather than on every call: the map stays small and calls stay O(1) on average.
      if (++calls % 1024 === 0 || entries.size >= maxEntries) sweep(now)
      while (entries.size >= maxEntries) {
        const oldest = entries.keys().next()
        if (oldest.done === true) break
        entries.delete(oldest.value)
      }
      entries.delete(entry.key)
      entries.set(entry.key, Math.max(entry.expiresAt, now + ttlMs))
      return false
    }
  }
}
