// Batched outcome recording (Outcomes.ts): the attempts that wait to be recorded, when a batch is
// written, and the next state a failed attempt leads to.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { fastAnswerMs, makeEndpointSpeeds, START_IN_FLIGHT_PER_MERCHANT } from "../src/callbacks/EndpointSpeeds.js"
import { Leases } from "../src/callbacks/Leases.js"
import {
  backoffDelay,
  type EndedAttempt,
  EndedAttempts,
  nextAfterFailure,
  RECORD_WAIT_MS,
  recordNow,
  settleEnded
} from "../src/callbacks/Outcomes.js"
import { Wakeup } from "../src/callbacks/Wakeup.js"
import type { ClaimedDelivery } from "../src/store/DeliveryStore.js"

let sequence = 0
const delivery = (appKey: string, createdAtMs = 0): ClaimedDelivery => ({
  id: `dlv_${++sequence}`,
  orderSn: `PC${sequence}`,
  appKey,
  eventId: `evt_${sequence}`,
  eventType: "order.paid",
  body: "{}",
  status: "pending",
  attemptCount: 0,
  nextAttemptAtMs: 0,
  lastError: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  createdAtMs,
  deliveredAt: null,
  notifyUrl: "http://127.0.0.1:9/"
})

const ended = (of: ClaimedDelivery, endedMs = 0): EndedAttempt => ({
  delivery: of,
  leasedUntilMs: 11_000,
  attempt: {
    at: "2026-01-01T00:00:00.000Z",
    url: "http://127.0.0.1:9/",
    httpStatus: 200,
    error: null,
    keyVersion: 1,
    durationMs: 3
  },
  delivered: true,
  failed: 1,
  endedMs,
  begun: 1
})

const speeds = () => makeEndpointSpeeds({ fastMs: fastAnswerMs(10_000), maxFast: 2 })

describe("EndedAttempts", () => {
  it("keeps when the oldest waiting attempt ended, until none waits", () => {
    const waiting = new EndedAttempts()
    expect(waiting.sinceMs).toBe(Number.POSITIVE_INFINITY)
    const first = ended(delivery("a"))
    const second = ended(delivery("b"))
    waiting.add(first, 100)
    waiting.add(second, 130)
    expect(waiting.sinceMs).toBe(100)
    expect(waiting.perMerchant()).toEqual(
      new Map([
        ["a", 1],
        ["b", 1]
      ])
    )
    const batch = waiting.snapshot()
    // An attempt that ends while a batch is written joins the next one.
    const third = ended(delivery("a"))
    waiting.add(third, 140)
    waiting.remove(batch)
    expect(waiting.size).toBe(1)
    expect(waiting.deliveryIds()).toEqual(new Set([third.delivery.id]))
    expect(waiting.sinceMs).toBe(100)
    waiting.remove([third])
    expect(waiting.size).toBe(0)
    expect(waiting.sinceMs).toBe(Number.POSITIVE_INFINITY)
  })
})

describe("recordNow", () => {
  it("records nothing when nothing ended", () => {
    expect(recordNow(new EndedAttempts(), new Leases(), speeds(), 0)).toBe(false)
  })

  it("records at once when every attempt in flight has ended", () => {
    const leases = new Leases()
    const one = delivery("a")
    leases.take([one], 10_000)
    const waiting = new EndedAttempts()
    waiting.add(ended(one), 0)
    expect(recordNow(waiting, leases, speeds(), 0)).toBe(true)
  })

  it("waits for the others in flight, at most RECORD_WAIT_MS", () => {
    const leases = new Leases()
    const [one, other] = [delivery("a"), delivery("a")]
    leases.take([one!, other!], 10_000)
    const waiting = new EndedAttempts()
    waiting.add(ended(one!), 1_000)
    expect(recordNow(waiting, leases, speeds(), 1_000 + RECORD_WAIT_MS - 1)).toBe(false)
    expect(recordNow(waiting, leases, speeds(), 1_000 + RECORD_WAIT_MS)).toBe(true)
  })

  it("records a start limit's worth at once when the last claim filled the room", () => {
    const leases = new Leases()
    const claimed = Array.from({ length: START_IN_FLIGHT_PER_MERCHANT + 1 }, (_, i) => delivery(`m${i}`))
    leases.claimedFrom(claimed, claimed.length, () => START_IN_FLIGHT_PER_MERCHANT)
    leases.take(claimed, 10_000)
    const waiting = new EndedAttempts()
    for (const one of claimed.slice(0, START_IN_FLIGHT_PER_MERCHANT - 1)) waiting.add(ended(one), 0)
    expect(recordNow(waiting, leases, speeds(), 0)).toBe(false)
    waiting.add(ended(claimed[START_IN_FLIGHT_PER_MERCHANT - 1]!), 0)
    expect(recordNow(waiting, leases, speeds(), 0)).toBe(true)
  })

  it("records when a saturated merchant has a batch of slots free again", () => {
    const leases = new Leases()
    const busy = Array.from({ length: START_IN_FLIGHT_PER_MERCHANT }, () => delivery("busy"))
    const other = delivery("other")
    leases.claimedFrom([...busy, other], 100, () => START_IN_FLIGHT_PER_MERCHANT)
    leases.take([...busy, other], 10_000)
    expect(leases.saturated.has("busy")).toBe(true)
    const waiting = new EndedAttempts()
    // A slow merchant's batch is its whole start limit: one ended attempt is not enough.
    waiting.add(ended(busy[0]!), 0)
    expect(recordNow(waiting, leases, speeds(), 0)).toBe(false)
    for (const one of busy.slice(1)) waiting.add(ended(one), 0)
    expect(recordNow(waiting, leases, speeds(), 0)).toBe(true)
  })
})

describe("settleEnded", () => {
  /** The loop asleep for `ms` from `nowMs`, as DeliveryLoop.ts puts it to sleep; resolves how long it slept. */
  const asleep = (wakeup: Wakeup, nowMs: number, ms: number): Promise<number> => {
    wakeup.sleepingUntil = nowMs + ms
    const start = performance.now()
    return Effect.runPromise(wakeup.sleep(ms)).then(() => performance.now() - start)
  }

  it("wakes the sleeping loop at once for a lone attempt: its outcome is recorded without waiting", async () => {
    const leases = new Leases()
    const one = delivery("a")
    leases.take([one], 10_000)
    const waiting = new EndedAttempts()
    const wakeup = new Wakeup()
    const slept = asleep(wakeup, Date.now(), 10_000)
    settleEnded({ ended: waiting, leases, speeds: speeds(), wakeup }, ended(one), Date.now())
    expect(await slept).toBeLessThan(RECORD_WAIT_MS)
    expect(waiting.size).toBe(1)
  })

  it("has the loop up within RECORD_WAIT_MS, not at once, while others are in flight; the last end wakes it", async () => {
    const leases = new Leases()
    const batch = Array.from({ length: 3 }, () => delivery("a"))
    leases.take(batch, 10_000)
    const waiting = new EndedAttempts()
    const deps = { ended: waiting, leases, speeds: speeds(), wakeup: new Wakeup() }
    // The first end: the loop sleeps on, but no longer than the outcome may wait.
    const first = asleep(deps.wakeup, Date.now(), 10_000)
    settleEnded(deps, ended(batch[0]!), Date.now())
    const sleptFirst = await first
    expect(sleptFirst).toBeGreaterThanOrEqual(RECORD_WAIT_MS - 5)
    expect(sleptFirst).toBeLessThan(2_000)
    // The loop records it and sleeps again: a second end does not wake it, the third (the last
    // in flight) does.
    waiting.remove(waiting.snapshot())
    leases.free(batch[0]!)
    const second = asleep(deps.wakeup, Date.now(), 10_000)
    settleEnded(deps, ended(batch[1]!), Date.now())
    setTimeout(() => settleEnded(deps, ended(batch[2]!), Date.now()), 10)
    const sleptSecond = await second
    expect(sleptSecond).toBeGreaterThanOrEqual(5)
    expect(sleptSecond).toBeLessThan(RECORD_WAIT_MS)
    expect(waiting.size).toBe(2)
  })

  it("shortens the next sleep when an attempt ends while the loop works", async () => {
    const leases = new Leases()
    const batch = [delivery("a"), delivery("a")]
    leases.take(batch, 10_000)
    const waiting = new EndedAttempts()
    const deps = { ended: waiting, leases, speeds: speeds(), wakeup: new Wakeup() }
    // Ended before the loop computed its sleep (from an older view of what waits).
    settleEnded(deps, ended(batch[0]!), Date.now())
    const slept = await asleep(deps.wakeup, Date.now(), 10_000)
    expect(slept).toBeLessThan(2_000)
  })
})

describe("the next state after a failed attempt", () => {
  it("is a retry after the backoff, doubling with +-25% jitter", () => {
    expect(backoffDelay(200, 1, 0.5)).toBe(200)
    expect(backoffDelay(200, 3, 0.5)).toBe(800)
    expect(backoffDelay(200, 1, 0)).toBe(150)
    const timing = { backoffMs: 200, maxAgeMs: 10_000 }
    expect(nextAfterFailure(delivery("a"), 2, 1_000, 0.5, timing)).toEqual({
      status: "pending",
      nextAttemptAtMs: 1_400
    })
  })

  it("is failed once the retry would come after the deliveries' time", () => {
    const timing = { backoffMs: 200, maxAgeMs: 1_000 }
    expect(nextAfterFailure(delivery("a", 0), 1, 900, 0.5, timing)).toEqual({ status: "failed" })
    expect(nextAfterFailure(delivery("a", 0), 1, 800, 0.5, timing)).toEqual({
      status: "pending",
      nextAttemptAtMs: 1_000
    })
  })
})
