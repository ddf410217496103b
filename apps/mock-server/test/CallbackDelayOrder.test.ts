// Callback faults on purpose (CONTRACT.md "Faults and time"), `delayMs` and `outOfOrder`, against a
// real mock on 127.0.0.1, a real receiver and the mock's real platform keys: a delayed first attempt
// arrives no sooner than its delay (or at once when the clock is moved past it), and callbacks due
// together go out in a seeded shuffled order, the same for the same seed.
import * as Wire from "@pc/core/Wire"
import { type Receiver, startReceiver, listenEvents } from "@pc/test-support"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import type { FaultSetting } from "../src/config/Faults.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { orderSnOf, platformVerifiers, verifiedEvent } from "./support/receiver.js"

let mock: RunningMock | undefined
let receiver: Receiver | undefined
afterEach(async () => {
  await mock?.close()
  await receiver?.close()
  mock = undefined
  receiver = undefined
})

/** A mock with `faults` and a receiver its test merchant's callbacks go to. */
const startWith = async (faults: FaultSetting) => {
  mock = await startMock({ environment: "production", faults })
  receiver = await startReceiver(200)
  await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: receiver.url })
  return { mock, receiver }
}

const orderSnFrom = (created: Awaited<ReturnType<typeof createOrder>>) =>
  Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data).orderSn

const newOrder = async (url: string, orderId: string) =>
  orderSnFrom(await createOrder(url, JSON.stringify({ orderId, amount: "2.50", currency: "USD" })))

describe("callbacks.delayMs", () => {
  it("[800, 1200]: a paid order's first callback arrives no sooner than 800 ms after the payment, and a fault event says so", async () => {
    const { mock, receiver } = await startWith({ seed: 3, callbacks: { delayMs: [800, 1200] } })
    const events = await listenEvents(mock.url)
    const orderId = `delay-${process.pid}`
    const orderSn = await newOrder(mock.url, orderId)
    const paidAtMs = Date.now()
    expect((await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)).status).toBe(200)
    const [callback] = await receiver.waitFor(1, (request) => orderSnOf(request) === orderSn, 5_000)
    const fault = await events.next((event) => event.type === "fault" && event.route === "callback")
    await events.close()
    expect(fault).toMatchObject({ name: "delay", route: "callback", orderId, requestId: null })
    const delayMs = Number(fault.delayMs)
    expect(delayMs).toBeGreaterThanOrEqual(800)
    expect(delayMs).toBeLessThanOrEqual(1200)
    const waitedMs = callback!.receivedAtMs - paidAtMs
    expect(waitedMs).toBeGreaterThanOrEqual(800)
    expect(waitedMs).toBeGreaterThanOrEqual(delayMs)
    // The delayed attempt is an ordinary one: signed by the platform key at the time it is sent.
    const verified = await verifiedEvent(callback!, TEST_MERCHANT_APP_KEY, await platformVerifiers(mock.url))
    expect(verified.event).toMatchObject({ eventType: "order.paid", orderSn })
    expect(Number(verified.timestamp)).toBeGreaterThanOrEqual(paidAtMs + 800)
    console.info(`delay drawn ${delayMs} ms, first callback after ${waitedMs} ms (seed 3, delayMs [800, 1200])`)
  })

  it("a first attempt delayed a minute goes out at once when the clock is moved past its delay", async () => {
    const { mock, receiver } = await startWith({ seed: 3, callbacks: { delayMs: [60_000, 60_000] } })
    const orderSn = await newOrder(mock.url, `delay-clock-${process.pid}`)
    await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(receiver.received).toHaveLength(0)
    const movedAtMs = Date.now()
    expect((await dev(mock.url, "POST", "/dev/clock/advance", { ms: 60_000 })).status).toBe(200)
    const [callback] = await receiver.waitFor(1, (request) => orderSnOf(request) === orderSn, 2_000)
    expect(callback!.receivedAtMs - movedAtMs).toBeLessThan(2_000)
    expect(receiver.received).toHaveLength(1)
  })
})

const ORDERS = 20

/**
 * Pays ORDERS orders in sequence, their callbacks held a minute by `delayMs`, then moves the clock
 * past that so that all are due together: the order (by payment) their callbacks arrived in.
 */
const arrivalOrder = async (seed: number) => {
  const { mock, receiver } = await startWith({ seed, callbacks: { outOfOrder: true, delayMs: [60_000, 60_000] } })
  const events = await listenEvents(mock.url)
  const paid: Array<string> = []
  for (let i = 0; i < ORDERS; i++) {
    const orderSn = await newOrder(mock.url, `shuffle-${i}`)
    expect((await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)).status).toBe(200)
    paid.push(orderSn)
  }
  expect(receiver.received).toHaveLength(0)
  await dev(mock.url, "POST", "/dev/clock/advance", { ms: 120_000 })
  const arrived = await receiver.waitFor(ORDERS, undefined, 10_000)
  const shuffled = await events.next((event) => event.type === "fault" && event.name === "outOfOrder")
  await events.close()
  expect(shuffled).toMatchObject({ route: "callback", requestId: null })
  const verifiers = await platformVerifiers(mock.url)
  for (const request of arrived) await verifiedEvent(request, TEST_MERCHANT_APP_KEY, verifiers)
  const order = arrived.map((request) => paid.indexOf(orderSnOf(request)!))
  await mock.close()
  await receiver.close()
  return order
}

describe("callbacks.outOfOrder", () => {
  it("sends callbacks due together in a seeded shuffled order, the same for the same seed", async () => {
    const first = await arrivalOrder(17)
    mock = undefined
    receiver = undefined
    const second = await arrivalOrder(17)
    mock = undefined
    receiver = undefined
    const inPaymentOrder = Array.from({ length: ORDERS }, (_, i) => i)
    // Every order's callback once, in another order than the payments', and the same order both times.
    expect([...first].sort((a, b) => a - b)).toEqual(inPaymentOrder)
    expect(first).not.toEqual(inPaymentOrder)
    expect(second).toEqual(first)
    console.info(`seed 17, ${ORDERS} orders paid in sequence, callbacks arrived in payment order ${first.join(",")}`)
  })

  it("without outOfOrder, callbacks due together go out in payment order", async () => {
    const { mock, receiver } = await startWith({ seed: 17, callbacks: { delayMs: [60_000, 60_000] } })
    const paid: Array<string> = []
    for (let i = 0; i < 8; i++) {
      const orderSn = await newOrder(mock.url, `in-order-${i}`)
      await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
      paid.push(orderSn)
    }
    await dev(mock.url, "POST", "/dev/clock/advance", { ms: 120_000 })
    const arrived = await receiver.waitFor(8, undefined, 10_000)
    // Claimed four at a time (a new endpoint's limit), earliest due first: the batches keep payment order.
    const batches = [0, 4].map((from) =>
      arrived
        .slice(from, from + 4)
        .map((request) => paid.indexOf(orderSnOf(request)!))
        .sort((a, b) => a - b)
    )
    expect(batches).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7]
    ])
  })
})
