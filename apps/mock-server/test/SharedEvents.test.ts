// The replicas' event payloads stay under PostgreSQL's NOTIFY limit (8000 bytes) however many
// events a batch holds, and carry every event once, in order.
import { describe, expect, it } from "vitest"
import type { MockEvent } from "../src/events/MockEvents.js"
import { payloadsOf } from "../src/events/SharedEvents.js"

const event = (i: number): MockEvent => ({
  type: "delivery.attempted",
  at: new Date(1_700_000_000_000 + i).toISOString(),
  deliveryId: `dlv_${"d".repeat(40)}${i}`,
  orderSn: `PC${String(i).padStart(20, "0")}`,
  eventType: "order.paid"
})

describe("payloadsOf", () => {
  it("splits a large batch into payloads under 8000 bytes that carry every event once, in order", () => {
    const events = Array.from({ length: 2_000 }, (_, i) => event(i))
    const payloads = payloadsOf("origin-1", events)
    expect(payloads.length).toBeGreaterThan(1)
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8_000)
    const parsed = payloads.map((payload) => JSON.parse(payload) as { origin: string; events: Array<MockEvent> })
    expect(parsed.every((payload) => payload.origin === "origin-1")).toBe(true)
    expect(parsed.flatMap((payload) => payload.events)).toEqual(events)
  })

  it("sends one payload for a small batch and none for no events", () => {
    expect(payloadsOf("o", [event(1), event(2)])).toHaveLength(1)
    expect(payloadsOf("o", [])).toEqual([])
  })

  it("leaves out an event that alone would not fit, and keeps the rest", () => {
    const huge = { ...event(0), orderSn: "x".repeat(9_000) }
    const payloads = payloadsOf("o", [event(1), huge, event(2)])
    expect(payloads.flatMap((payload) => (JSON.parse(payload) as { events: Array<MockEvent> }).events)).toEqual([
      event(1),
      event(2)
    ])
  })
})
