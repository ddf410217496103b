// How many callbacks the dispatcher has in flight and how it batches them (CONTRACT.md "Callbacks";
// Leases.ts): at most MAX_IN_FLIGHT at once; per merchant START_IN_FLIGHT_PER_MERCHANT, or
// MAX_IN_FLIGHT_PER_MERCHANT while its endpoint answers fast; every row it claims attempted at once
// (the claim counts what each merchant has in flight), and a backlog sent a batch at a time, each
// batch claimed, signed and begun together. The receiver holds every request open until the test
// releases it (or answers the next few at once), so the counts are read, not raced.
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { Schema } from "effect"
import { afterEach, expect, it } from "vitest"
import { MAX_IN_FLIGHT } from "../src/callbacks/Leases.js"
import {
  fastAnswerMs,
  MAX_IN_FLIGHT_PER_MERCHANT,
  START_IN_FLIGHT_PER_MERCHANT
} from "../src/callbacks/EndpointSpeeds.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { type HoldingReceiver, startHoldingReceiver } from "./support/holdingReceiver.js"
import { deliveriesOf } from "./support/receiver.js"
import { until } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

const closing: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close()
})

/** An attempt's time: a held request must not time out while the test holds it. */
const CALLBACK_TIMEOUT_MS = 60_000
/** Held longer than this before its release, an answer is slow: the merchant stays at the start limit. */
const SLOW_MS = fastAnswerMs(CALLBACK_TIMEOUT_MS) + 50
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const started = async () => {
  // Nor a refused one be retried while the test runs.
  const mock = await startMock({
    environment: "production",
    callbackTimeoutMs: CALLBACK_TIMEOUT_MS,
    callbackBackoffMs: 600_000
  })
  closing.push(mock)
  const receiver = await startHoldingReceiver()
  closing.push(receiver)
  return { mock, receiver }
}

/** A new merchant (one key pair serves them all), with `notifyUrl` if given. */
const merchant = async (mock: Mock, pair: Awaited<ReturnType<typeof KeyPair.generate>>, notifyUrl?: string) => {
  const made = await dev<{ appKey: string }>(mock.url, "POST", "/dev/merchants", {
    publicKeyPem: pair.publicKeyPem,
    ...(notifyUrl === undefined ? {} : { notifyUrl })
  })
  expect(made.json.code).toBe("SUCCESS")
  return { appKey: made.json.data!.appKey, signer: await NodeCrypto.importPrivateKey(pair.privateKeyPem) }
}

const paidOrder = async (mock: Mock, options: Parameters<typeof createOrder>[2], orderId: string) => {
  const created = await createOrder(mock.url, JSON.stringify({ orderId, amount: "1.00", currency: "USD" }), options)
  expect(created.json.code).toBe("SUCCESS")
  const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
  expect((await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)).json.code).toBe("SUCCESS")
  return orderSn
}

/** Releases what is held, again and again, each answer slow, until `total` requests were answered. */
const releaseAll = async (receiver: HoldingReceiver, total: number) => {
  let answered = 0
  while (answered < total) {
    await receiver.waitHeld(1)
    await sleep(SLOW_MS)
    answered += receiver.releaseHeldFor(SLOW_MS)
  }
}

/**
 * A merchant's backlog of `count` paid orders, made due at once: each first attempt is refused
 * (no notify URL yet, retried only much later), then setting the notify URL makes them all due.
 */
const backlog = async (mock: Mock, receiver: HoldingReceiver, count: number, path: string) => {
  const options = await merchant(mock, await KeyPair.generate(2048))
  const orders: Array<string> = []
  for (let i = 0; i < count; i++) orders.push(await paidOrder(mock, options, `${path}-${i}`))
  for (const orderSn of orders) {
    await until(
      async () => ((await deliveriesOf(mock.url, orderSn))[0]?.attempts.length === 1 ? true : undefined),
      "a condition",
      { timeoutMs: 10_000, intervalMs: 10 }
    )
  }
  const set = await dev(mock.url, "PUT", `/dev/merchants/${options.appKey}/notify-url`, {
    notifyUrl: `${receiver.url}/${path}`
  })
  expect(set.json.code).toBe("SUCCESS")
  return orders
}

it(`keeps at most ${MAX_IN_FLIGHT} attempts in flight and ${START_IN_FLIGHT_PER_MERCHANT} per merchant not known to be fast, and fills both`, async () => {
  const { mock, receiver } = await started()
  const pair = await KeyPair.generate(2048)
  const merchants = MAX_IN_FLIGHT / START_IN_FLIGHT_PER_MERCHANT + 1
  const each = START_IN_FLIGHT_PER_MERCHANT + 2
  // One merchant more than the slots in all hold at the start limit: the bound in all binds, and
  // each merchant's too.
  for (let m = 0; m < merchants; m++) {
    const options = await merchant(mock, pair, `${receiver.url}/m${m}`)
    for (let i = 0; i < each; i++) await paidOrder(mock, options, `m${m}-${i}`)
  }
  await receiver.waitHeld(MAX_IN_FLIGHT)
  await releaseAll(receiver, merchants * each)

  const most = receiver.most()
  expect(most.all).toBe(MAX_IN_FLIGHT)
  expect(Math.max(...most.perPath.values())).toBe(START_IN_FLIGHT_PER_MERCHANT)
  expect(most.perPath.size).toBe(merchants)
  // Every callback once: none was attempted again (each attempt was answered 200).
  expect(receiver.received).toHaveLength(merchants * each)
  expect(new Set(receiver.received.map((request) => request.eventId)).size).toBe(merchants * each)
}, 120_000)

it(`sends a slow merchant's backlog in batches: its ${START_IN_FLIGHT_PER_MERCHANT} slots at once, then as they free up, slots freed together claimed together`, async () => {
  const { mock, receiver } = await started()
  const total = 10
  await backlog(mock, receiver, total, "b")

  const timestamp = (n: number) => receiver.received[n]!.headers["x-r-ts"]
  await receiver.waitHeld(START_IN_FLIGHT_PER_MERCHANT)
  const first = receiver.received.slice(0, START_IN_FLIGHT_PER_MERCHANT).map((_, n) => timestamp(n))
  expect(new Set(first).size).toBe(1)

  // One attempt ends alone: after a short wait for others its slot is used again, by itself.
  await sleep(SLOW_MS)
  receiver.release(1)
  await receiver.waitReceived(START_IN_FLIGHT_PER_MERCHANT + 1)
  expect(timestamp(START_IN_FLIGHT_PER_MERCHANT)).not.toBe(first[0])
  // All of its slots end together: they are claimed, signed and begun together.
  await sleep(SLOW_MS)
  receiver.release(START_IN_FLIGHT_PER_MERCHANT)
  const next = START_IN_FLIGHT_PER_MERCHANT + 1
  await receiver.waitReceived(next + START_IN_FLIGHT_PER_MERCHANT)
  const batch = receiver.received.slice(next, next + START_IN_FLIGHT_PER_MERCHANT).map((_, n) => timestamp(next + n))
  expect(new Set(batch).size).toBe(1)
  expect(timestamp(next)).not.toBe(timestamp(START_IN_FLIGHT_PER_MERCHANT))
  expect(receiver.most().all).toBe(START_IN_FLIGHT_PER_MERCHANT)

  await releaseAll(receiver, total - 1 - START_IN_FLIGHT_PER_MERCHANT)
  expect(receiver.received).toHaveLength(total)
  expect(receiver.most().all).toBe(START_IN_FLIGHT_PER_MERCHANT)
}, 120_000)

it(`gives a merchant whose endpoint answers fast ${MAX_IN_FLIGHT_PER_MERCHANT} slots, and ${START_IN_FLIGHT_PER_MERCHANT} again once it answers slowly`, async () => {
  const { mock, receiver } = await started()
  // The test merchant's callbacks go to the receiver too: one of them shows that a claim ran.
  const set = await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
    notifyUrl: `${receiver.url}/t`
  })
  expect(set.json.code).toBe("SUCCESS")
  const tries = 5
  // Each try that fails costs two batches (the one held, answered slowly, and the next one).
  const total =
    START_IN_FLIGHT_PER_MERCHANT +
    tries * 2 * START_IN_FLIGHT_PER_MERCHANT +
    MAX_IN_FLIGHT_PER_MERCHANT +
    2 * START_IN_FLIGHT_PER_MERCHANT
  // The first batch (the start limit) is answered at once: the endpoint is fast.
  receiver.answerAtOnce(START_IN_FLIGHT_PER_MERCHANT)
  await backlog(mock, receiver, total, "f")
  const sent = () => receiver.received.filter((request) => request.path === "/f").length

  // The next claim takes all its slots. (Should this process stall for longer than a fast answer
  // while the batch is answered, the batch counts as slow: the next one, held, is then answered
  // slowly and the one after it at once again.)
  for (let n = 0; n < tries && receiver.held.length < MAX_IN_FLIGHT_PER_MERCHANT; n++) {
    await receiver.waitHeld(START_IN_FLIGHT_PER_MERCHANT)
    await sleep(SLOW_MS)
    if (receiver.held.length >= MAX_IN_FLIGHT_PER_MERCHANT) break
    receiver.answerAtOnce(START_IN_FLIGHT_PER_MERCHANT)
    receiver.releaseHeldFor(SLOW_MS)
  }
  await receiver.waitHeld(MAX_IN_FLIGHT_PER_MERCHANT)
  expect(receiver.most().perPath.get("/f")).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
  const fastSent = sent()

  // They are answered slowly: the next batch is the start limit's, and no more goes out while it is held.
  await sleep(SLOW_MS)
  expect(receiver.releaseHeldFor(SLOW_MS)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
  await receiver.waitHeld(START_IN_FLIGHT_PER_MERCHANT)
  const barrier = await paidOrder(mock, {}, "barrier")
  await until(
    () => (receiver.received.some((request) => request.orderSn === barrier) ? true : undefined),
    "a condition",
    { timeoutMs: 10_000, intervalMs: 10 }
  )
  expect(sent()).toBe(fastSent + START_IN_FLIGHT_PER_MERCHANT)
  expect(receiver.held.filter((request) => request.path === "/f")).toHaveLength(START_IN_FLIGHT_PER_MERCHANT)

  await releaseAll(receiver, total - fastSent + 1)
  expect(receiver.received).toHaveLength(total + 1)
  expect(new Set(receiver.received.map((request) => request.eventId)).size).toBe(total + 1)
}, 120_000)

it("records the outcome of every attempt of a backlog answered at once, none left waiting (the loop is woken per batch, not per end)", async () => {
  const { mock, receiver } = await started()
  const total = 3 * START_IN_FLIGHT_PER_MERCHANT * 5
  receiver.answerAtOnce(total)
  const orders = await backlog(mock, receiver, total, "r")
  await receiver.waitReceived(total)
  // Each delivery: the refused first attempt (no notify URL yet), then the one answered 200.
  for (const orderSn of orders) {
    const [delivery] = await until(
      async () => {
        const found = await deliveriesOf(mock.url, orderSn)
        return found[0]?.status === "delivered" ? found : undefined
      },
      "a condition",
      { timeoutMs: 10_000, intervalMs: 10 }
    )
    expect(delivery!.attempts.map((attempt) => attempt.httpStatus)).toEqual([null, 200])
  }
  expect(new Set(receiver.received.map((request) => request.eventId)).size).toBe(total)
}, 120_000)
