// Callback faults on purpose (CONTRACT.md "Faults and time"): with duplicateRate 0.5 a real
// receiver on 127.0.0.1 gets some callbacks twice after acknowledging them, the same eventId each
// time, each signed afresh with its own X-R-Ts and each verifying with the mock's real platform key.
import * as Wire from "@pc/core/Wire"
import { Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { createOrder, dev } from "./support/mock.js"
import { type Receiver, startReceiver, until, listenEvents } from "@pc/test-support"
import { eventIdOf, platformVerifiers, verifiedEvent } from "./support/receiver.js"

let mock: RunningMock | undefined
let receiver: Receiver | undefined
afterEach(async () => {
  await mock?.close()
  await receiver?.close()
})

const ORDERS = 30

describe("callback faults", () => {
  it("duplicateRate 0.5: some callbacks come twice, the same eventId, each signed afresh and verifying", async () => {
    mock = await startMock({ environment: "production", faults: { seed: 11, callbacks: { duplicateRate: 0.5 } } })
    receiver = await startReceiver(200)
    await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: receiver.url })
    const events = await listenEvents(mock.url)
    for (let i = 0; i < ORDERS; i++) {
      const created = await createOrder(
        mock.url,
        JSON.stringify({ orderId: `dup-${process.pid}-${i}`, amount: "1.00", currency: "USD" })
      )
      const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
      await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    }
    const duplicates = () => events.events.filter((event) => event.type === "fault" && event.name === "duplicate")
    // Every order's callback, plus one more for each duplicate announced, and no change for 1.5 s: a
    // duplicate is announced as its original is acknowledged and sent a moment later, so on a loaded
    // machine the two counts can meet while one more is on its way.
    let settled: { readonly count: string; readonly since: number } | undefined
    await until(
      () => {
        const count = `${receiver!.received.length}/${duplicates().length}`
        const complete = receiver!.received.length === ORDERS + duplicates().length && duplicates().length > 0
        if (!complete || settled?.count !== count) {
          settled = complete ? { count, since: Date.now() } : undefined
          return undefined
        }
        return Date.now() - settled.since >= 1_500 ? true : undefined
      },
      "every callback and its duplicates",
      { timeoutMs: 30_000 }
    )
    await events.close()
    const byEventId = new Map<string, Array<(typeof receiver.received)[number]>>()
    for (const request of receiver.received) {
      const eventId = eventIdOf(request)!
      byEventId.set(eventId, [...(byEventId.get(eventId) ?? []), request])
    }
    expect(byEventId.size).toBe(ORDERS)
    const twice = [...byEventId.values()].filter((requests) => requests.length === 2)
    expect([...byEventId.values()].every((requests) => requests.length <= 2)).toBe(true)
    expect(twice.length).toBe(duplicates().length)
    // Seeded at 0.5 over 30: some, not all.
    expect(twice.length).toBeGreaterThan(3)
    expect(twice.length).toBeLessThan(ORDERS)
    const verifiers = await platformVerifiers(mock.url)
    for (const [first, second] of twice) {
      const a = await verifiedEvent(first!, TEST_MERCHANT_APP_KEY, verifiers)
      const b = await verifiedEvent(second!, TEST_MERCHANT_APP_KEY, verifiers)
      expect(b.event.eventId).toBe(a.event.eventId)
      expect(b.event).toEqual(a.event)
      expect(b.timestamp).not.toBe(a.timestamp)
      expect(second!.receivedAtMs).toBeGreaterThanOrEqual(first!.receivedAtMs)
    }
    console.info(`${ORDERS} callbacks, ${twice.length} delivered twice (seed 11, duplicateRate 0.5)`)
  })
})
