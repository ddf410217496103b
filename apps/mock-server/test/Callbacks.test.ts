// Signed callbacks end to end (spec 5.5, CONTRACT.md "Callbacks"): a real mock, a real receiver on
// 127.0.0.1, real RSA keys. Every callback is verified exactly as a merchant would verify it.
import { Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { Schema } from "effect"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { backoffDelay } from "../src/callbacks/Outcomes.js"
import { START_IN_FLIGHT_PER_MERCHANT } from "../src/callbacks/EndpointSpeeds.js"
import type { MockConfigShape } from "../src/config/Config.js"
import { ATTEMPT_WITHOUT_OUTCOME } from "../src/store/DeliveryStore.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev, type SignedRequestOptions } from "./support/mock.js"
import {
  type DeliveryView,
  deliveriesOf,
  fetchPlatformKeys,
  orderSnOf,
  platformVerifiers,
  verifiedEvent,
  verifyCallback
} from "./support/receiver.js"
import { type ReceivedRequest, type Receiver, startReceiver, until } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

/** The callback body's fields, in the contract's order (held to the contract by core's Wire test). */
const CONTRACT_FIELDS = Object.keys(Wire.CallbackEvent.fields)

const decodeCreated = Schema.decodeUnknownSync(Wire.CreateOrderResult)
const decodeOrder = Schema.decodeUnknownSync(Wire.Order)

interface World {
  readonly mock: Mock
  readonly receiver: Receiver
}

/** A production mock whose test merchant sends its callbacks to a fresh receiver. */
const startWorld = async (overrides: Partial<MockConfigShape> = {}): Promise<World> => {
  const mock = await startMock({ environment: "production", ...overrides })
  const receiver = await startReceiver()
  const set = await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
    notifyUrl: receiver.url
  })
  expect(set.json).toEqual({
    code: "SUCCESS",
    msg: null,
    data: { appKey: TEST_MERCHANT_APP_KEY, notifyUrl: receiver.url }
  })
  return { mock, receiver }
}

const stopWorld = async (world: World | undefined) => {
  await world?.mock.close()
  await world?.receiver.close()
}

let sequence = 0

/** Creates an order signed with the merchant's real key; resolves its orderSn and orderId. */
const newOrder = async (baseUrl: string, options: SignedRequestOptions = {}, amount = "12.34") => {
  const orderId = `cb-${process.pid}-${Date.now()}-${++sequence}`
  const created = await createOrder(baseUrl, JSON.stringify({ orderId, amount, currency: "USD" }), options)
  expect(created.status).toBe(200)
  expect(created.json.code).toBe("SUCCESS")
  return { orderId, orderSn: decodeCreated(created.json.data).orderSn }
}

const move = async (baseUrl: string, orderSn: string, verb: "pay" | "fail" | "expire") => {
  const moved = await dev(baseUrl, "POST", `/dev/orders/${orderSn}/${verb}`)
  expect(moved.status).toBe(200)
  expect(moved.json.code).toBe("SUCCESS")
  return decodeOrder(moved.json.data)
}

const forOrder = (orderSn: string) => (request: ReceivedRequest) => orderSnOf(request) === orderSn

/** Polls /dev/callbacks until the order's only delivery satisfies `done`. */
const waitForDelivery = (baseUrl: string, orderSn: string, done: (delivery: DeliveryView) => boolean) =>
  until(
    async () => {
      const deliveries = await deliveriesOf(baseUrl, orderSn)
      return deliveries.length === 1 && done(deliveries[0]!) ? deliveries[0]! : undefined
    },
    `the delivery of ${orderSn}`,
    { timeoutMs: 10_000, intervalMs: 20 }
  )

/** When the running test started (Date.now()), to place the callbacks' X-R-Ts without a time bound. */
let testStartedMs = 0
beforeEach(() => {
  testStartedMs = Date.now()
})

/** The headers every callback carries, whatever else: POST, JSON, a fresh X-R-Ts. */
const expectCallbackShape = (request: ReceivedRequest) => {
  expect(request.method).toBe("POST")
  expect(request.url).toBe("/callbacks")
  expect(request.headers["content-type"]).toBe("application/json")
  const ts = Number(Headers.get(request.headers, Headers.CallbackHeaders.timestamp))
  expect(Number.isSafeInteger(ts)).toBe(true)
  // Stamped when the attempt starts (same machine, same clock): during this test, before it arrived here.
  expect(ts).toBeGreaterThanOrEqual(testStartedMs)
  expect(ts).toBeLessThanOrEqual(request.receivedAtMs)
  expect(Headers.get(request.headers, Headers.CallbackHeaders.signature)).toMatch(/^[A-Za-z0-9+/]+={0,2}$/)
}

/**
 * How long the mock waited between the end of each attempt and the start of the next, on the mock's
 * own clock. An attempt starts at `at`, is sent no earlier, and ends `durationMs` after it was sent,
 * so `at + durationMs` is no later than its end: each figure is at most the real wait, never more.
 */
const waitsBetweenAttempts = (delivery: DeliveryView): Array<number> =>
  delivery.attempts
    .slice(1)
    .map((next, i) => Date.parse(next.at) - (Date.parse(delivery.attempts[i]!.at) + delivery.attempts[i]!.durationMs))

describe("callbacks of the test merchant", () => {
  let world: World | undefined
  const w = () => world!

  beforeAll(async () => {
    world = await startWorld()
  })
  afterAll(() => stopWorld(world))
  beforeEach(() => w().receiver.answer(200))

  it.each([
    ["pay", "order.paid", "PAID"],
    ["fail", "order.failed", "FAILED"],
    ["expire", "order.expired", "EXPIRED"]
  ] as const)(
    "%s sends one %s callback, signed with platform key 1 and shaped as the contract says",
    async (verb, eventType, status) => {
      const { mock, receiver } = w()
      const keys = await platformVerifiers(mock.url)
      expect([...keys.keys()]).toEqual([1])
      const { orderId, orderSn } = await newOrder(mock.url)
      const moved = await move(mock.url, orderSn, verb)
      expect(moved.status).toBe(status)

      const [request] = await receiver.waitFor(1, forOrder(orderSn))
      expectCallbackShape(request!)
      expect(Headers.get(request!.headers, Headers.CallbackHeaders.keyVersion)).toBe("1")
      const verified = await verifiedEvent(request!, TEST_MERCHANT_APP_KEY, keys)
      expect(verified.keyVersion).toBe(1)

      // Compact JSON, the contract's fields in the contract's order, the order as it is now.
      expect(request!.body).toBe(JSON.stringify(JSON.parse(request!.body)))
      expect(Object.keys(JSON.parse(request!.body))).toEqual(CONTRACT_FIELDS)
      const event = verified.event
      expect(event.eventId).toMatch(/^evt_/)
      expect(event).toEqual({
        eventId: event.eventId,
        eventType,
        orderSn,
        outerOrder: orderId,
        amount: "12.34",
        currency: "USD",
        status,
        createdAt: moved.createdAt,
        updatedAt: moved.updatedAt
      })

      // The signature covers appKey, timestamp and body: another appKey, timestamp or body does not verify.
      const otherAppKey = await verifyCallback(request!, "00000000-0000-4000-8000-000000000000", keys)
      expect(otherAppKey.ok).toBe(false)
      const ts = Headers.get(request!.headers, Headers.CallbackHeaders.timestamp)!
      const otherTs = await verifyCallback(
        { ...request!, headers: { ...request!.headers, "x-r-ts": String(Number(ts) + 1) } },
        TEST_MERCHANT_APP_KEY,
        keys
      )
      expect(otherTs.ok).toBe(false)
      const reformatted = JSON.stringify(JSON.parse(request!.body), null, 1)
      const otherBody = await verifyCallback(
        { ...request!, body: reformatted, rawBody: new TextEncoder().encode(reformatted) },
        TEST_MERCHANT_APP_KEY,
        keys
      )
      expect(otherBody.ok).toBe(false)

      const delivery = await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered")
      expect(delivery).toMatchObject({ orderSn, eventId: event.eventId, eventType, attemptCount: 1, lastError: null })
      expect(delivery.body).toBe(request!.body)
      expect(delivery.deliveredAt).not.toBeNull()
      expect(delivery.attempts).toHaveLength(1)
      expect(delivery.attempts[0]).toMatchObject({
        attempt: 1,
        url: receiver.url,
        httpStatus: 200,
        error: null,
        keyVersion: 1
      })

      // One move, one callback: the store holds one delivery for the order, delivered, with no
      // further attempt scheduled (a retry or a second delivery would show here), and one arrived.
      expect(delivery.nextAttemptAt).toBeNull()
      expect(receiver.received.filter(forOrder(orderSn))).toHaveLength(1)
    }
  )

  it("retries after HTTP 500 with growing delays, each attempt with a new timestamp and a valid signature", async () => {
    const { mock, receiver } = w()
    const keys = await platformVerifiers(mock.url)
    const { orderSn } = await newOrder(mock.url)
    let seen = 0
    receiver.answer((request) => (forOrder(orderSn)(request) && seen++ < 2 ? 500 : 200))
    await move(mock.url, orderSn, "pay")

    const requests = await receiver.waitFor(3, forOrder(orderSn))
    const delivery = await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered")
    expect(delivery.attemptCount).toBe(3)
    expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([500, 500, 200])
    expect(delivery.attempts.map((a) => a.attempt)).toEqual([1, 2, 3])
    expect(delivery.attempts[0]!.error).toBe("merchant answered HTTP 500: receiver says 500")
    expect(delivery.attempts[2]!.error).toBeNull()
    expect(delivery.lastError).toBeNull()
    expect(receiver.received.filter(forOrder(orderSn))).toHaveLength(3)

    const stamps: Array<number> = []
    for (const request of requests) {
      expectCallbackShape(request)
      const verified = await verifiedEvent(request, TEST_MERCHANT_APP_KEY, keys)
      expect(verified.event.eventId).toBe(delivery.eventId)
      expect(request.body).toBe(requests[0]!.body)
      stamps.push(Number(verified.timestamp))
    }
    // A new X-R-Ts on each attempt, never the first one again.
    expect(stamps[1]!).toBeGreaterThan(stamps[0]!)
    expect(stamps[2]!).toBeGreaterThan(stamps[1]!)

    // Exponential backoff from 200 ms with +-25% jitter: at least 150 ms, then at least 300 ms (more
    // than the first wait's 250 ms at most, so the wait grew). Measured on the mock's clock, where
    // the waits start: the receiver's gaps also carry each request's send latency, which varies.
    const waits = waitsBetweenAttempts(delivery)
    expect(waits[0]).toBeGreaterThanOrEqual(150)
    expect(waits[1]).toBeGreaterThanOrEqual(300)
    for (const random of [0, 0.5, 0.999]) {
      expect(backoffDelay(200, 1, random)).toBeGreaterThanOrEqual(150)
      expect(backoffDelay(200, 1, random)).toBeLessThanOrEqual(250)
      expect(backoffDelay(200, 2, random)).toBeGreaterThanOrEqual(300)
      expect(backoffDelay(200, 2, random)).toBeLessThanOrEqual(500)
      expect(backoffDelay(200, 3, random)).toBe(2 * backoffDelay(200, 2, random))
    }
  })

  it("resend delivers the same event again with a fresh timestamp", async () => {
    const { mock, receiver } = w()
    const keys = await platformVerifiers(mock.url)
    const { orderSn } = await newOrder(mock.url)
    await move(mock.url, orderSn, "pay")
    const [first] = await receiver.waitFor(1, forOrder(orderSn))
    const delivered = await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered")

    const resent = await dev<DeliveryView>(mock.url, "POST", `/dev/callbacks/${delivered.id}/resend`)
    expect(resent.status).toBe(200)
    expect(resent.json.code).toBe("SUCCESS")
    expect(resent.json.data).toMatchObject({ id: delivered.id, eventId: delivered.eventId, orderSn })

    const [, second] = await receiver.waitFor(2, forOrder(orderSn))
    expectCallbackShape(second!)
    const one = await verifiedEvent(first!, TEST_MERCHANT_APP_KEY, keys)
    const two = await verifiedEvent(second!, TEST_MERCHANT_APP_KEY, keys)
    expect(two.event.eventId).toBe(one.event.eventId)
    expect(second!.body).toBe(first!.body)
    expect(Number(two.timestamp)).toBeGreaterThan(Number(one.timestamp))

    const again = await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered" && d.attemptCount === 2)
    expect(again.attempts.map((a) => a.httpStatus)).toEqual([200, 200])

    const unknown = await dev(mock.url, "POST", "/dev/callbacks/dlv_nope/resend")
    expect(unknown.status).toBe(404)
    expect(unknown.json).toMatchObject({ code: "notFound", data: null })
  })

  it("a merchant without a notifyUrl: the delivery waits with a clear error, and is sent as soon as the URL is set", async () => {
    const { mock, receiver } = w()
    const keys = await platformVerifiers(mock.url)
    const pair = await KeyPair.generate(2048)
    const made = await dev<{ appKey: string; keyVersion: number }>(mock.url, "POST", "/dev/merchants", {
      publicKeyPem: pair.publicKeyPem
    })
    expect(made.json.code).toBe("SUCCESS")
    const appKey = made.json.data!.appKey
    expect(made.json.data!.keyVersion).toBe(1)
    const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
    const { orderSn } = await newOrder(mock.url, { appKey, signer })
    await move(mock.url, orderSn, "pay")

    const waiting = await waitForDelivery(mock.url, orderSn, (d) => d.attemptCount >= 1)
    expect(waiting.status).toBe("pending")
    expect(waiting.attempts[0]).toMatchObject({ attempt: 1, url: null, httpStatus: null, keyVersion: null })
    expect(waiting.attempts[0]!.error).toMatch(/no notifyUrl/)
    expect(waiting.lastError).toMatch(/no notifyUrl/)
    expect(waiting.nextAttemptAt).not.toBeNull()
    expect(receiver.received.filter(forOrder(orderSn))).toHaveLength(0)

    // Setting the URL makes the waiting delivery due at once: no resend needed.
    const set = await dev(mock.url, "PUT", `/dev/merchants/${appKey}/notify-url`, { notifyUrl: receiver.url })
    expect(set.json.code).toBe("SUCCESS")

    const [request] = await receiver.waitFor(1, forOrder(orderSn))
    expectCallbackShape(request!)
    // Signed for this merchant's appKey, not the test merchant's.
    const verified = await verifiedEvent(request!, appKey, keys)
    expect(verified.event).toMatchObject({ eventId: waiting.eventId, eventType: "order.paid", orderSn, status: "PAID" })
    expect((await verifyCallback(request!, TEST_MERCHANT_APP_KEY, keys)).ok).toBe(false)
    const delivered = await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered")
    expect(delivered.attempts.at(-1)).toMatchObject({ url: receiver.url, httpStatus: 200 })
    expect(delivered.attempts.slice(0, -1).every((a) => a.url === null)).toBe(true)
  })
})

describe("callback timeout", () => {
  let world: World | undefined
  afterEach(() => stopWorld(world))

  it("a receiver that does not answer within callbackTimeoutMs gets retried", async () => {
    world = await startWorld({ callbackTimeoutMs: 300 })
    const { mock, receiver } = world
    const keys = await platformVerifiers(mock.url)
    const { orderSn } = await newOrder(mock.url)
    receiver.answer((_, n) => (n === 0 ? "hang" : 200))
    await move(mock.url, orderSn, "pay")

    const requests = await receiver.waitFor(2, forOrder(orderSn))
    const delivery = await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered")
    expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([null, 200])
    expect(delivery.attempts[0]!.error).toBe("no answer within 300 ms")
    // The attempt waited out its timeout (AbortSignal.timeout fires no earlier than 300 ms; 10 ms for
    // timer rounding). No upper bound: the receiver never answers, so without the timeout this
    // delivery would never be retried and the waits above would fail.
    expect(delivery.attempts[0]!.durationMs).toBeGreaterThanOrEqual(290)
    for (const request of requests) {
      expectCallbackShape(request)
      expect((await verifiedEvent(request, TEST_MERCHANT_APP_KEY, keys)).event.eventId).toBe(delivery.eventId)
    }
    // The retry waited its backoff (at least 150 ms) after the timed-out attempt ended.
    expect(waitsBetweenAttempts(delivery)[0]).toBeGreaterThanOrEqual(150)
  })
})

describe("the dispatcher's wake-up", () => {
  let world: World | undefined
  afterEach(() => stopWorld(world))

  it("is a move in this process, not a timer: with the longest poll allowed the callback still arrives", async () => {
    // The dispatcher would sleep 24 days before looking for work by itself: the callback can only
    // arrive because the pay move woke it (the wait below would time out otherwise).
    world = await startWorld({ callbackPollMs: 2 ** 31 - 1 })
    const { mock, receiver } = world
    for (let i = 0; i < 3; i++) {
      const { orderSn } = await newOrder(mock.url)
      await move(mock.url, orderSn, "pay")
      const [request] = await receiver.waitFor(1, forOrder(orderSn))
      expectCallbackShape(request!)
      await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered")
    }
  })
})

describe("a callback in flight", () => {
  let world: World | undefined
  afterEach(() => stopWorld(world))

  it("does not delay the retries of other deliveries", async () => {
    // Far longer than this test takes: the slow attempt is still open when the test ends.
    world = await startWorld({ callbackTimeoutMs: 25_000 })
    const { mock, receiver } = world
    const slow = await newOrder(mock.url)
    const other = await newOrder(mock.url)
    let otherSeen = 0
    receiver.answer((request) => (forOrder(slow.orderSn)(request) ? "hang" : otherSeen++ < 1 ? 500 : 200))
    await move(mock.url, slow.orderSn, "pay")
    await receiver.waitFor(1, forOrder(slow.orderSn))

    // Another order's retry comes after its own backoff (at least 150 ms, on the mock's clock)...
    await move(mock.url, other.orderSn, "pay")
    await receiver.waitFor(2, forOrder(other.orderSn))
    const delivery = await waitForDelivery(mock.url, other.orderSn, (d) => d.status === "delivered")
    expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([500, 200])
    expect(waitsBetweenAttempts(delivery)[0]).toBeGreaterThanOrEqual(150)
    // ...while the hanging attempt is still open: recorded before it was sent (CONTRACT.md), without
    // an outcome yet. Had the retry waited for the hanging attempt, it would come after this.
    const [hanging] = await deliveriesOf(mock.url, slow.orderSn)
    expect(hanging).toMatchObject({ status: "pending", attemptCount: 1 })
    expect(hanging!.attempts).toEqual([
      expect.objectContaining({ attempt: 1, httpStatus: null, error: ATTEMPT_WITHOUT_OUTCOME })
    ])
  })
})

describe("a resend while an attempt is in flight", () => {
  let world: World | undefined
  afterEach(() => stopWorld(world))

  it("is not lost: the merchant gets the delivery twice, and the delivery counts two attempts", async () => {
    world = await startWorld({ callbackTimeoutMs: 5_000 })
    const { mock, receiver } = world
    const keys = await platformVerifiers(mock.url)
    const { orderSn } = await newOrder(mock.url)
    // The first request takes a second to answer; the resend comes in meanwhile.
    receiver.answer((_, n) => (n === 0 ? { status: 200, delayMs: 1_000 } : 200))
    await move(mock.url, orderSn, "pay")
    const [first] = await receiver.waitFor(1, forOrder(orderSn))
    const [inFlight] = await deliveriesOf(mock.url, orderSn)
    expect(inFlight).toMatchObject({ status: "pending", attemptCount: 1 })
    expect(inFlight!.attempts.map((a) => a.error)).toEqual([ATTEMPT_WITHOUT_OUTCOME])
    const resent = await dev<DeliveryView>(mock.url, "POST", `/dev/callbacks/${inFlight!.id}/resend`)
    expect(resent.json.code).toBe("SUCCESS")

    const [, second] = await receiver.waitFor(2, forOrder(orderSn))
    // Sent once the first attempt ended, not alongside it.
    expect(second!.receivedAtMs - first!.receivedAtMs).toBeGreaterThanOrEqual(900)
    const delivery = await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered" && d.attemptCount === 2)
    expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([200, 200])
    for (const request of [first!, second!]) {
      expect((await verifiedEvent(request, TEST_MERCHANT_APP_KEY, keys)).event.eventId).toBe(delivery.eventId)
    }
    // Nothing more is scheduled for it (a third send would be a pending attempt here), and two arrived.
    expect(delivery.nextAttemptAt).toBeNull()
    expect(receiver.received.filter(forOrder(orderSn))).toHaveLength(2)
  })
})

describe("the merchant's answer", () => {
  let world: World | undefined
  afterEach(() => stopWorld(world))

  it("is read only as far as the excerpt needs: a body that never ends does not hold the attempt", async () => {
    // A timeout longer than the test: if the attempt waited for the body's end, nothing would be
    // recorded before the test's own timeout, and waitForDelivery (10 s) would fail.
    world = await startWorld({ callbackTimeoutMs: 60_000 })
    const { mock, receiver } = world
    const { orderSn } = await newOrder(mock.url)
    receiver.answer((_, n) => (n === 0 ? { status: 500, body: "x".repeat(4096), keepOpen: true } : 200))
    await move(mock.url, orderSn, "pay")
    const delivery = await waitForDelivery(mock.url, orderSn, (d) => d.status === "delivered")
    // Recorded as soon as the status and the first bytes came, not when the timeout ended it.
    expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([500, 200])
    expect(delivery.attempts[0]!.error).toBe(`merchant answered HTTP 500: ${"x".repeat(200)}`)
  })
})

describe("a backlog of deliveries", () => {
  let world: World | undefined
  afterEach(() => stopWorld(world))

  it(`is sent at most ${START_IN_FLIGHT_PER_MERCHANT} at a time for one merchant once the notify URL is set`, async () => {
    // Far longer than this test takes: the held requests stay in flight until it ends.
    world = await startWorld({ callbackTimeoutMs: 25_000 })
    const { mock, receiver } = world
    const pair = await KeyPair.generate(2048)
    const made = await dev<{ appKey: string }>(mock.url, "POST", "/dev/merchants", { publicKeyPem: pair.publicKeyPem })
    const appKey = made.json.data!.appKey
    const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
    const orders = []
    for (let i = 0; i < START_IN_FLIGHT_PER_MERCHANT + 4; i++) orders.push(await newOrder(mock.url, { appKey, signer }))
    for (const order of orders) await move(mock.url, order.orderSn, "pay")
    receiver.answer("hang")

    const set = await dev(mock.url, "PUT", `/dev/merchants/${appKey}/notify-url`, { notifyUrl: receiver.url })
    expect(set.json.code).toBe("SUCCESS")
    await receiver.waitFor(START_IN_FLIGHT_PER_MERCHANT)
    // The receiver holds every request open: no more of this merchant's come while those are in
    // flight. Proof that the dispatcher has looked at the backlog again since: it sent another
    // merchant's callback (the test merchant's, to the same receiver) in a later turn, and still
    // none of the rest of the backlog, whose sends would be recorded (with their URL) before they go.
    const barrier = await newOrder(mock.url)
    await move(mock.url, barrier.orderSn, "pay")
    await receiver.waitFor(1, forOrder(barrier.orderSn))
    const backlog = new Set(orders.map((order) => order.orderSn))
    expect(receiver.received.filter((request) => backlog.has(orderSnOf(request) ?? ""))).toHaveLength(
      START_IN_FLIGHT_PER_MERCHANT
    )
    const attempted = []
    for (const order of orders) {
      const [delivery] = await deliveriesOf(mock.url, order.orderSn)
      // The attempts made before the URL was set carry no URL; a send carries the receiver's.
      if (delivery!.attempts.some((attempt) => attempt.url !== null)) attempted.push(order.orderSn)
    }
    expect(attempted).toHaveLength(START_IN_FLIGHT_PER_MERCHANT)
  })
})

describe("platform key rotation", () => {
  let world: World | undefined
  afterEach(() => stopWorld(world))

  it("after rotation callbacks carry key version 2 and verify with key 2 only; key 1 stays published", async () => {
    world = await startWorld()
    const { mock, receiver } = world
    const before = await fetchPlatformKeys(mock.url)
    expect(before).toEqual([
      {
        environment: "production",
        version: 1,
        publicKeyPem: expect.stringContaining("BEGIN PUBLIC KEY"),
        status: "current"
      }
    ])
    const key1 = await NodeCrypto.importPublicKey(before[0]!.publicKeyPem)

    const a = await newOrder(mock.url)
    await move(mock.url, a.orderSn, "pay")
    const [first] = await receiver.waitFor(1, forOrder(a.orderSn))
    expect(Headers.get(first!.headers, Headers.CallbackHeaders.keyVersion)).toBe("1")
    await verifiedEvent(first!, TEST_MERCHANT_APP_KEY, new Map([[1, key1]]))

    const rotated = await dev(mock.url, "POST", "/dev/platform-keys/rotate")
    expect(rotated.json.code).toBe("SUCCESS")
    expect(rotated.json.data).toMatchObject({ environment: "production", version: 2, status: "current" })

    const after = await fetchPlatformKeys(mock.url)
    expect(after.map((k) => [k.version, k.status])).toEqual([
      [1, "published"],
      [2, "current"]
    ])
    expect(after[0]!.publicKeyPem).toBe(before[0]!.publicKeyPem)
    expect(after[1]!.publicKeyPem).not.toBe(before[0]!.publicKeyPem)
    expect(after[1]!.publicKeyPem).toBe((rotated.json.data as { publicKeyPem: string }).publicKeyPem)
    const key2 = await NodeCrypto.importPublicKey(after[1]!.publicKeyPem)
    expect(key2.modulusLength).toBeGreaterThanOrEqual(2048)

    const b = await newOrder(mock.url)
    await move(mock.url, b.orderSn, "pay")
    const [second] = await receiver.waitFor(1, forOrder(b.orderSn))
    expectCallbackShape(second!)
    expect(Headers.get(second!.headers, Headers.CallbackHeaders.keyVersion)).toBe("2")
    const verified = await verifiedEvent(second!, TEST_MERCHANT_APP_KEY, new Map([[2, key2]]))
    expect(verified.keyVersion).toBe(2)
    // Key 1 does not verify a key-2 callback, and a ring without key 2 rejects it.
    expect((await verifyCallback(second!, TEST_MERCHANT_APP_KEY, new Map([[2, key1]]))).ok).toBe(false)
    expect(await verifyCallback(second!, TEST_MERCHANT_APP_KEY, new Map([[1, key1]]))).toEqual({
      ok: false,
      reason: "no platform key version 2"
    })
    const delivery = await waitForDelivery(mock.url, b.orderSn, (d) => d.status === "delivered")
    expect(delivery.attempts[0]!.keyVersion).toBe(2)
  })
})

describe("order expiry", () => {
  let world: World | undefined
  afterEach(() => stopWorld(world))

  it("an order left CREATED past its time to live expires by itself and sends order.expired", async () => {
    world = await startWorld({ orderTtlMs: 300 })
    const { mock, receiver } = world
    const keys = await platformVerifiers(mock.url)
    const { orderId, orderSn } = await newOrder(mock.url)
    const created = await dev(mock.url, "GET", `/dev/orders/${orderSn}`)
    expect(decodeOrder(created.json.data).status).toBe("CREATED")

    const expired = await until(
      async () => {
        const order = decodeOrder((await dev(mock.url, "GET", `/dev/orders/${orderSn}`)).json.data)
        return order.status === "EXPIRED" ? order : undefined
      },
      `order ${orderSn} to expire`,
      { timeoutMs: 10_000, intervalMs: 25 }
    )
    // Not before its time to live (both stamps from the mock's clock). No upper bound: expiring at
    // all, with nobody moving the order, is the behaviour; until fails if it never happens.
    const lived = Date.parse(expired.updatedAt) - Date.parse(expired.createdAt)
    expect(lived).toBeGreaterThanOrEqual(300)

    const [request] = await receiver.waitFor(1, forOrder(orderSn))
    expectCallbackShape(request!)
    const verified = await verifiedEvent(request!, TEST_MERCHANT_APP_KEY, keys)
    expect(verified.event).toMatchObject({
      eventType: "order.expired",
      orderSn,
      outerOrder: orderId,
      status: "EXPIRED",
      updatedAt: expired.updatedAt
    })
    // Final: it can no longer be paid.
    const pay = await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    expect(pay.status).toBe(400)
    expect(pay.json.code).toBe("paramError")
  })
})
