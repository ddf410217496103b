// The mock's clock (CONTRACT.md "Faults and time"): a test moves it forward instead of waiting. A
// real mock, a real receiver on 127.0.0.1, real RSA keys; every callback is verified as a merchant
// would, since signatures stay on real time.
import * as Wire from "@pc/core/Wire"
import { Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { createOrder, dev } from "./support/mock.js"
import { type Receiver, type ReceivedRequest, startReceiver, until } from "@pc/test-support"
import { deliveriesOf, orderSnOf, platformVerifiers, verifiedEvent } from "./support/receiver.js"

const decodeCreated = Schema.decodeUnknownSync(Wire.CreateOrderResult)
const decodeOrder = Schema.decodeUnknownSync(Wire.Order)
const ClockState = Schema.Struct({ now: Schema.String, offsetMs: Schema.Int })
const decodeClock = Schema.decodeUnknownSync(ClockState)

const MINUTE = 60_000

let mock: RunningMock | undefined
let receiver: Receiver | undefined
afterEach(async () => {
  await mock?.close()
  await receiver?.close()
  mock = undefined
  receiver = undefined
})

/** A production mock whose test merchant sends its callbacks to a fresh receiver. */
const startWorld = async (callbackBackoffMs = 200) => {
  const started = await startMock({ environment: "production", callbackBackoffMs, callbackTimeoutMs: 1_000 })
  mock = started
  const listening = await startReceiver()
  receiver = listening
  const set = await dev(started.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
    notifyUrl: listening.url
  })
  expect(set.status).toBe(200)
  return { mock: started, receiver: listening }
}

let sequence = 0
const newOrder = async (baseUrl: string) => {
  const orderId = `clock-${process.pid}-${++sequence}`
  const created = await createOrder(baseUrl, JSON.stringify({ orderId, amount: "5.00", currency: "USD" }))
  expect(created.status).toBe(200)
  return decodeCreated(created.json.data).orderSn
}

const advance = async (baseUrl: string, ms: number) => {
  const moved = await dev(baseUrl, "POST", "/dev/clock/advance", { ms })
  expect(moved.status).toBe(200)
  return decodeClock(moved.json.data)
}

const forOrder = (orderSn: string) => (request: ReceivedRequest) => orderSnOf(request) === orderSn

describe("the mock's clock", () => {
  it("starts at the real time with no offset, and adds up the advances", async () => {
    const { mock } = await startWorld()
    const before = Date.now()
    const first = await dev(mock.url, "GET", "/dev/clock")
    expect(first.status).toBe(200)
    const initial = decodeClock(first.json.data)
    expect(initial.offsetMs).toBe(0)
    expect(Date.parse(initial.now)).toBeGreaterThanOrEqual(before - 1)
    expect(Date.parse(initial.now)).toBeLessThanOrEqual(Date.now())
    expect((await advance(mock.url, 5 * MINUTE)).offsetMs).toBe(5 * MINUTE)
    const moved = await advance(mock.url, 1_000)
    expect(moved.offsetMs).toBe(5 * MINUTE + 1_000)
    expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(5 * MINUTE - 1_000)
    expect(decodeClock((await dev(mock.url, "GET", "/dev/clock")).json.data).offsetMs).toBe(5 * MINUTE + 1_000)
  })

  it("refuses an advance that is not a whole number of milliseconds above 0 with paramError", async () => {
    const { mock } = await startWorld()
    for (const body of [{ ms: 0 }, { ms: -5 }, { ms: 1.5 }, { ms: "60000" }, {}]) {
      const refused = await dev(mock.url, "POST", "/dev/clock/advance", body)
      expect(refused.status).toBe(400)
      expect(refused.json.code).toBe("paramError")
    }
    expect(decodeClock((await dev(mock.url, "GET", "/dev/clock")).json.data).offsetMs).toBe(0)
  })

  it("expires an order 31 minutes on and delivers its order.expired callback within 2 s", async () => {
    const { mock, receiver } = await startWorld()
    const verifiers = await platformVerifiers(mock.url)
    const orderSn = await newOrder(mock.url)
    // Not yet: 29 minutes on, the order is still open.
    await advance(mock.url, 29 * MINUTE)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(receiver.received.filter(forOrder(orderSn))).toHaveLength(0)
    const advancedAt = Date.now()
    await advance(mock.url, 2 * MINUTE)
    const [callback] = await receiver.waitFor(1, forOrder(orderSn), 2_000)
    expect(Date.now() - advancedAt).toBeLessThan(2_000)
    const { event } = await verifiedEvent(callback!, TEST_MERCHANT_APP_KEY, verifiers)
    expect(event.eventType).toBe("order.expired")
    expect(event.status).toBe("EXPIRED")
    const order = await dev(mock.url, "GET", `/dev/orders/${orderSn}`)
    expect(decodeOrder(order.json.data).status).toBe("EXPIRED")
  })

  it("sends a retry that came due on the moved clock at once, not after its backoff", async () => {
    // A backoff of 10 minutes: without the clock the second attempt would come 7.5 to 12.5 minutes on.
    const { mock, receiver } = await startWorld(10 * MINUTE)
    receiver.answer((_, n) => (n === 0 ? 500 : 200))
    const orderSn = await newOrder(mock.url)
    const paid = await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    expect(paid.status).toBe(200)
    await receiver.waitFor(1, forOrder(orderSn), 5_000)
    // The failure is recorded with its next attempt far ahead.
    await until(
      async () => ((await deliveriesOf(mock.url, orderSn))[0]?.attempts.length === 1 ? true : undefined),
      "the first attempt's record"
    )
    const advancedAt = Date.now()
    await advance(mock.url, 13 * MINUTE)
    const both = await receiver.waitFor(2, forOrder(orderSn), 2_000)
    expect(Date.now() - advancedAt).toBeLessThan(2_000)
    // The retry is signed afresh on the real clock, with the same event.
    const verifiers = await platformVerifiers(mock.url)
    const first = await verifiedEvent(both[0]!, TEST_MERCHANT_APP_KEY, verifiers)
    const second = await verifiedEvent(both[1]!, TEST_MERCHANT_APP_KEY, verifiers)
    expect(second.event.eventId).toBe(first.event.eventId)
    expect(Math.abs(Number(second.timestamp) - Date.now())).toBeLessThan(5_000)
    const delivered = await until(async () => {
      const [delivery] = await deliveriesOf(mock.url, orderSn)
      return delivery?.status === "delivered" ? delivery : undefined
    }, "the delivery delivered")
    expect(delivered.attempts).toHaveLength(2)
  })

  it("leaves the next attempt of a delivery in flight alone", async () => {
    const { mock, receiver } = await startWorld()
    receiver.answer({ status: 200, delayMs: 500 })
    const orderSn = await newOrder(mock.url)
    await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    await receiver.waitFor(1, forOrder(orderSn), 5_000)
    // The attempt is on the wire (its answer takes 500 ms): the move must not start a second one.
    await advance(mock.url, 60 * MINUTE)
    const delivered = await until(async () => {
      const [delivery] = await deliveriesOf(mock.url, orderSn)
      return delivery?.status === "delivered" ? delivery : undefined
    }, "the delivery delivered")
    expect(delivered.attempts).toHaveLength(1)
    expect(receiver.received.filter(forOrder(orderSn))).toHaveLength(1)
  })
})
