// The Redis replay guard on a real (throwaway) redis-server, through both common drivers: the
// shared suite, four processes racing, then what is particular to Redis.
import { startRedis } from "@pc/servers"
import { Redis } from "ioredis"
import { afterAll, describe, expect, it } from "vitest"
import * as ReplayRedis from "../src/ReplayRedis.js"
import { entryOf } from "./support/replayGuards.js"
import { describeReplayGuard } from "./support/replayGuardSuite.js"
import { sharedGuardHarness } from "./support/sharedGuardHarness.js"

const server = await startRedis()
const admin = new Redis(server.url)
afterAll(async () => {
  await admin.quit()
  await server.stop()
})

/**
 * Redis counts expiry by its own clock, so the suite's time passes for a key by shortening what
 * is left of its life: what the guard set is what is left to shorten.
 */
const elapse = async (key: string, ms: number) => {
  const name = `pc:callback:${key}`
  const left = await admin.pttl(name)
  if (left <= ms) await admin.del(name)
  else await admin.pexpire(name, left - ms)
}

describeReplayGuard("Redis through ioredis", sharedGuardHarness("ioredis", server.url, elapse))
describeReplayGuard("Redis through node-redis", sharedGuardHarness("node-redis", server.url, elapse))

describe("ReplayRedis", () => {
  it("sets one key per delivery, under the prefix, for the ttl (PX, Redis's own clock)", async () => {
    const guard = ReplayRedis.make(admin, { prefix: "shop:cb:", ttlMs: 15 * 60_000 })
    const now = Date.now()
    expect(await guard.seenBefore(entryOf("k1", now))).toBe(false)
    const left = await admin.pttl("shop:cb:k1")
    // The key was set after `now`, so it has run down by no more than the time since (same machine
    // clock); a millisecond more for Redis's rounding. Not a fixed 5 s, which a loaded run can pass.
    const since = Date.now() - now
    expect(left).toBeGreaterThanOrEqual(15 * 60_000 - since - 1)
    expect(left).toBeLessThanOrEqual(15 * 60_000)
  })

  it("fails closed: a Redis that does not answer rejects, and the verifier refuses the callback", async () => {
    const other = await startRedis()
    const client = new Redis(other.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null
    })
    try {
      await client.connect()
      const guard = ReplayRedis.make(client)
      expect(await guard.seenBefore(entryOf("k2", Date.now()))).toBe(false)
      await other.stop()
      await expect(guard.seenBefore(entryOf("k3", Date.now()))).rejects.toThrow()
    } finally {
      client.disconnect()
      await other.stop()
    }
  })

  it("refuses a client with neither call nor sendCommand", () => {
    expect(() => ReplayRedis.make({} as unknown as ReplayRedis.RedisCommands)).toThrow(TypeError)
  })
})
