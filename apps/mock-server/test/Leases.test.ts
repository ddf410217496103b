// The dispatcher's lease bookkeeping (Leases.ts): what is in flight, per merchant, and whether the
// next claim can find anything.
import { describe, expect, it } from "vitest"
import { Leases, leaseUntil, MAX_IN_FLIGHT } from "../src/callbacks/Leases.js"
import type { ClaimedDelivery } from "../src/store/DeliveryStore.js"

let sequence = 0
const delivery = (appKey: string): ClaimedDelivery => ({
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
  createdAtMs: 0,
  deliveredAt: null,
  notifyUrl: "http://127.0.0.1:9/"
})

describe("Leases", () => {
  it("starts needing a claim, with all the room and nothing known to be due", () => {
    const leases = new Leases()
    expect(leases.claimNeeded).toBe(true)
    expect(leases.room).toBe(MAX_IN_FLIGHT)
    expect(leases.dueAtMs).toBe(Number.NEGATIVE_INFINITY)
  })

  it("takes claimed rows in flight, per merchant, and is due again when their lease ends", () => {
    const leases = new Leases()
    leases.dueAtMs = Number.POSITIVE_INFINITY
    const claimed = [delivery("a"), delivery("a"), delivery("b")]
    leases.take(claimed, 5_000)
    expect(leases.room).toBe(MAX_IN_FLIGHT - 3)
    expect(leases.byMerchant).toEqual(
      new Map([
        ["a", 2],
        ["b", 1]
      ])
    )
    expect(leases.dueAtMs).toBe(5_000)
    const options = leases.claimOptions(10, 4, new Map())
    expect(options.exclude).toEqual(claimed.map((one) => one.id))
    expect(options.inFlight.get("a")).toBe(2)
    expect(leases.claimNeeded).toBe(false)
  })

  it("frees a slot per recorded outcome and learns when a retry falls due", () => {
    const leases = new Leases()
    const [first, second] = [delivery("a"), delivery("a")]
    leases.dueAtMs = Number.POSITIVE_INFINITY
    leases.take([first!, second!], 10_000)
    leases.claimOptions(10, 4, new Map())
    leases.recorded(first!, 3_000)
    expect(leases.inFlight.has(first!.id)).toBe(false)
    expect(leases.byMerchant.get("a")).toBe(1)
    expect(leases.dueAtMs).toBe(3_000)
    // Neither room filled nor the merchant saturated: a freed slot finds nothing new.
    expect(leases.claimNeeded).toBe(false)
    leases.recorded(second!, undefined)
    expect(leases.byMerchant.has("a")).toBe(false)
    expect(leases.dueAtMs).toBe(3_000)
  })

  it("marks a merchant whose claim took all its slots, and claims again when one of them frees", () => {
    const leases = new Leases()
    const claimed = [delivery("a"), delivery("a"), delivery("b")]
    leases.claimOptions(10, 2, new Map())
    leases.claimedFrom(claimed, 10, () => 2)
    leases.take(claimed, 10_000)
    expect([...leases.saturated]).toEqual(["a"])
    expect(leases.roomFilled).toBe(false)
    leases.recorded(claimed[2]!, undefined)
    expect(leases.claimNeeded).toBe(false)
    leases.recorded(claimed[0]!, undefined)
    expect(leases.claimNeeded).toBe(true)
  })

  it("after a claim that filled the room, any freed slot needs a claim", () => {
    const leases = new Leases()
    const claimed = [delivery("a"), delivery("b")]
    leases.claimOptions(2, 4, new Map())
    leases.claimedFrom(claimed, 2, () => 4)
    leases.take(claimed, 10_000)
    expect(leases.roomFilled).toBe(true)
    expect(leases.saturated.size).toBe(0)
    leases.recorded(claimed[1]!, undefined)
    expect(leases.claimNeeded).toBe(true)
  })

  it("unmarks a merchant once a claim leaves it slots to spare", () => {
    const leases = new Leases()
    leases.claimedFrom([delivery("a"), delivery("a")], 10, () => 2)
    expect(leases.saturated.has("a")).toBe(true)
    leases.claimedFrom([], 10, () => 2)
    expect(leases.saturated.has("a")).toBe(false)
  })

  it("frees lost attempts and claims again; forgetting what is due claims again too", () => {
    const leases = new Leases()
    const claimed = [delivery("a"), delivery("b")]
    leases.take(claimed, 10_000)
    leases.claimOptions(10, 4, new Map())
    leases.lost(claimed)
    expect(leases.room).toBe(MAX_IN_FLIGHT)
    expect(leases.byMerchant.size).toBe(0)
    expect(leases.claimNeeded).toBe(true)
    leases.claimOptions(10, 4, new Map())
    leases.forgetDue()
    expect(leases.claimNeeded).toBe(true)
    expect(leases.dueAtMs).toBe(Number.NEGATIVE_INFINITY)
  })

  it("leases a row for an attempt's time and a margin to record it", () => {
    expect(leaseUntil(1_000, 10_000)).toBeGreaterThan(11_000 - 1)
    expect(leaseUntil(1_000, 10_000) - leaseUntil(0, 10_000)).toBe(1_000)
  })
})
