/**
 * A replay guard on Redis, shared by every process that receives callbacks: one key per accepted
 * delivery, set with `SET key claim NX PX ttl`, which Redis runs atomically and expires by itself.
 * Import it from `@pc/client/replay-redis`. It imports no Redis driver: pass the client you keep
 * (`ioredis` or `redis`, node-redis), so you install only the one you use.
 *
 * @since 0.1.0
 */
import { invalidTtl, keepUntil, DEFAULT_TTL_MS } from "./internal/replayExpiry.js"
import type { ReplayEntry, ReplayGuard } from "./ReplayGuard.js"

/**
 * The one thing the guard needs of a Redis client: to send a raw command. Both common drivers have
 * it, under different names: `ioredis` (`Redis`, `Cluster`) has `call(command, ...args)`, and
 * `redis` (node-redis, `createClient()`) has `sendCommand(args)`.
 *
 * @example
 * ```ts
 * import type { ReplayRedis } from "@pc/client/replay-redis"
 * import { Redis } from "ioredis"
 *
 * const client: ReplayRedis.RedisCommands = new Redis(process.env.REDIS_URL!)
 * ```
 */
export type RedisCommands =
  | { readonly call: (command: string, ...args: Array<string>) => PromiseLike<unknown> }
  | { readonly sendCommand: (args: Array<string>) => PromiseLike<unknown> }

/**
 * Options of {@link make}.
 *
 * @example
 * ```ts
 * import type { ReplayRedis } from "@pc/client/replay-redis"
 *
 * const options: ReplayRedis.Options = { prefix: "shop:callbacks:", ttlMs: 15 * 60 * 1000 }
 * ```
 */
export interface Options {
  /** Prefix of the guard's keys. Default `pc:callback:`. */
  readonly prefix?: string | undefined
  /** How long a delivery is kept after it arrived; at least the 5 minute window. Default 10 minutes. */
  readonly ttlMs?: number | undefined
}

/**
 * Makes a replay guard on a Redis client you keep (connected, and closed by you). Pass it as
 * `replayGuard` to the verifier of every process that receives callbacks: a delivery accepted by
 * one is refused as `Replayed` by all the others.
 *
 * The key lives for `ttlMs` after the delivery arrived, never less than until its `X-R-Ts` leaves
 * the window, counted by Redis (`PX`, a duration, so the receivers' clocks and Redis's need not
 * agree). A failed command (Redis down, a timeout) rejects, which refuses the callback
 * (`ReplayGuardFailed`, answered 500): the guard fails closed.
 *
 * Throws a `RangeError` for a `ttlMs` under the 5 minute window, a `TypeError` for a client with
 * neither `call` nor `sendCommand`.
 *
 * @example
 * ```ts
 * import { createPaymentClient } from "@pc/client/promise"
 * import { ReplayRedis } from "@pc/client/replay-redis"
 * import { Redis } from "ioredis"
 *
 * const redis = new Redis(process.env.REDIS_URL!)
 * const client = await createPaymentClient({ ...options, callbacks: { platformKeys, replayGuard: ReplayRedis.make(redis) } })
 * ```
 */
export const make = (client: RedisCommands, options: Options = {}): ReplayGuard => {
  const prefix = options.prefix ?? "pc:callback:"
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS
  const ttlProblem = invalidTtl(ttlMs)
  if (ttlProblem !== undefined) throw new RangeError(ttlProblem)
  const send: (args: Array<string>) => PromiseLike<unknown> =
    "call" in client && typeof client.call === "function"
      ? (args) => client.call(args[0]!, ...args.slice(1))
      : "sendCommand" in client && typeof client.sendCommand === "function"
        ? (args) => client.sendCommand(args)
        : (() => {
            throw new TypeError("ReplayRedis.make needs an ioredis client (call) or a node-redis client (sendCommand)")
          })()
  return {
    seenBefore: async (entry: ReplayEntry) => {
      const px = keepUntil(entry, ttlMs) - entry.receivedAt
      const reply = await send(["SET", prefix + entry.key, String(entry.receivedAt), "NX", "PX", String(Math.ceil(px))])
      // SET ... NX answers OK when it set the key, and nil when the key existed: a replay.
      if (reply === "OK") return false
      if (reply === null) return true
      throw new Error(`unexpected Redis reply to SET NX: ${JSON.stringify(reply)}`)
    }
  }
}
