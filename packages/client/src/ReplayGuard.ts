/**
 * Replay protection for callbacks (spec 6: "record processed timestamps to guard against replay"):
 * an interface that records each verified delivery and answers whether it was seen before, and an
 * in-memory store with a time to live and a hard size bound. Several processes share a guard on a
 * database table (`@pc/client/replay-sql`) or on Redis (`@pc/client/replay-redis`).
 *
 * @since 0.1.0
 */
import type { Environment } from "@pc/core"
import type * as Effect from "effect/Effect"
import { DEFAULT_TTL_MS, invalidTtl, keepUntil } from "./internal/replayExpiry.js"

/**
 * One verified callback delivery, as the guard sees it. The guard only ever sees deliveries whose
 * signature verified and whose `X-R-Ts` lies in the window: forged requests never reach it.
 *
 * `key` identifies the delivery attempt: your appKey, the environment, `X-R-Ts` and the event's
 * `eventId`. The signature covers all of them, so nobody can make up another key for a captured
 * delivery. The service signs each delivery attempt afresh with a new `X-R-Ts`, so a genuine
 * redelivery (after your endpoint failed) has a new key and passes, while a captured request sent
 * again is refused. Process events idempotently on `eventId`, which is the same for every
 * redelivery of one event.
 *
 * @example
 * ```ts
 * import type { ReplayGuard } from "@pc/client"
 *
 * const describe = (entry: ReplayGuard.ReplayEntry) => `${entry.eventId} at ${entry.timestamp}`
 * ```
 */
export interface ReplayEntry {
  /** `${appKey}:${environment}:${X-R-Ts}:${eventId}`, unique per delivery attempt. */
  readonly key: string
  /** Your merchant appKey (the verifier's). */
  readonly appKey: string
  readonly environment: Environment.Environment
  /** `X-R-Key-Version`: the platform key version that signed. */
  readonly keyVersion: number
  /** `X-R-Ts`, milliseconds. */
  readonly timestamp: number
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
 * Records verified deliveries and answers whether one was seen before. `@pc/client/replay-sql` and
 * `@pc/client/replay-redis` implement it on shared stores; implement it yourself over any store with
 * an atomic "set if absent with expiry". A rejection, a thrown error or a
 * failed Effect refuses the callback (`ReplayGuardFailed`, answered 500 so that the service
 * delivers again later): the guard fails closed.
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
  /**
   * The most deliveries held at once (about 300 bytes each: some 30 MB at the default 100 000).
   * When that many are still live, new deliveries are refused rather than any live one forgotten.
   */
  readonly maxEntries?: number | undefined
}

/**
 * An in-memory replay guard for one process: entries expire after `ttlMs` (and never before their
 * timestamp leaves the window). Use a shared store when several processes receive callbacks.
 *
 * Bounded: it holds at most `maxEntries` deliveries (default 100 000, about 30 MB; only verified,
 * fresh deliveries are recorded, so only the service's own traffic fills it: 100 000 in 10 minutes
 * is some 160 callbacks a second). When it holds that many live entries it refuses new deliveries,
 * throwing, which the verifier answers with `ReplayGuardFailed` (HTTP 500): the service delivers
 * again later, when entries have expired. It never evicts a live entry, since a replay of an
 * evicted delivery would pass. Expired entries are dropped from the oldest on, as deliveries arrive.
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
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS
  const maxEntries = options.maxEntries ?? 100_000
  const ttlProblem = invalidTtl(ttlMs)
  if (ttlProblem !== undefined) throw new RangeError(ttlProblem)
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
    throw new RangeError("maxEntries must be a whole number >= 1")
  // key -> expiry. A Map iterates in insertion order, and entries arrive in about the order they
  // expire (arrival + ttl, or the end of their timestamp's window when that is later), so the
  // expired ones gather at the front: sweeping from the front and stopping at the first live entry
  // costs O(1) per delivery, amortised.
  const entries = new Map<string, number>()
  const sweep = (now: number) => {
    for (const [key, expiresAt] of entries) {
      if (expiresAt > now) return
      entries.delete(key)
    }
  }
  return {
    size: () => entries.size,
    seenBefore: (entry) => {
      const now = entry.receivedAt
      sweep(now)
      const seen = entries.get(entry.key)
      if (seen !== undefined) {
        if (seen > now) return true
        // Expired, but kept behind a live entry that arrived earlier: forget it now.
        entries.delete(entry.key)
      }
      if (entries.size >= maxEntries) {
        // Fail closed: evicting a live entry would let a replay of that delivery through.
        throw new Error(
          `the in-memory replay guard is full: ${maxEntries} deliveries of the last ${Math.round(ttlMs / 60_000)} ` +
            `minutes are all still live (raise maxEntries, or use a shared store)`
        )
      }
      entries.set(entry.key, keepUntil(entry, ttlMs))
      return false
    }
  }
}
