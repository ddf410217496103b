// How many callbacks the dispatcher has in flight and how it batches them (CONTRACT.md "Callbacks";
// Dispatcher.ts): at most MAX_IN_FLIGHT at once and MAX_IN_FLIGHT_PER_MERCHANT per merchant, every
// row it claims attempted at once (the claim counts what each merchant has in flight), and a
// backlog sent a few at a time, each few claimed, signed and begun together. The receiver holds
// every request open until the test releases it, so the counts are read, not raced.
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { Schema } from "effect"
import { afterEach, expect, it } from "vitest"
import { MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_MERCHANT, MIN_CLAIM_PER_MERCHANT } from "../src/callbacks/Dispatcher.js"
import { createOrder, dev, type RunningMock, startMock } from "./support/mock.js"
import { type HoldingReceiver, startHoldingReceiver } from "./support/holdingReceiver.js"
import { deliveriesOf, waitUntil } from "./support/receiver.js"

const closing: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close()
})

const started = async () => {
  // A held request must not time out while the test holds it, nor a refused one be retried.
  const mock = await startMock({ environment: "production", callbackTimeoutMs: 60_000, callbackBackoffMs: 600_000 })
  closing.push(mock)
  const receiver = await startHoldingReceiver()
  closing.push(receiver)
  return { mock, receiver }
}

/** A new merchant (one key pair serves them all), with `notifyUrl` if given. */
const merchant = async (mock: RunningMock, pair: Awaited<ReturnType<typeof KeyPair.generate>>, notifyUrl?: string) => {
  const made = await dev<{ appKey: string }>(mock.url, "POST", "/dev/merchants", {
    publicKeyPem: pair.publicKeyPem,
    ...(notifyUrl === undefined ? {} : { notifyUrl })
  })
  expect(made.json.code).toBe("SUCCESS")
  return { appKey: made.json.data!.appKey, signer: await NodeCrypto.importPrivateKey(pair.privateKeyPem) }
}

const paidOrder = async (mock: RunningMock, options: Parameters<typeof createOrder>[2], orderId: string) => {
  const created = await createOrder(mock.url, JSON.stringify({ orderId, amount: "1.00", currency: "USD" }), options)
  expect(created.json.code).toBe("SUCCESS")
  const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
  expect((await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)).json.code).toBe("SUCCESS")
  return orderSn
}

/** Releases what is held, again and again, until `total` requests were answered. */
const releaseAll = async (receiver: HoldingReceiver, total: number) => {
  let answered = 0
  while (answered < total) {
    await receiver.waitHeld(1)
    answered += receiver.held.length
    receiver.release()
  }
}

it(`keeps at most ${MAX_IN_FLIGHT} attempts in flight and ${MAX_IN_FLIGHT_PER_MERCHANT} per merchant, and fills both`, async () => {
  const { mock, receiver } = await started()
  const pair = await KeyPair.generate(2048)
  const merchants = 5
  const each = 6
  // 5 merchants x 4 slots is more than 16: the bound in all binds, and each merchant's too.
  for (let m = 0; m < merchants; m++) {
    const options = await merchant(mock, pair, `${receiver.url}/m${m}`)
    for (let i = 0; i < each; i++) await paidOrder(mock, options, `m${m}-${i}`)
  }
  await receiver.waitHeld(MAX_IN_FLIGHT)
  await releaseAll(receiver, merchants * each)

  const most = receiver.most()
  expect(most.all).toBe(MAX_IN_FLIGHT)
  expect(Math.max(...most.perPath.values())).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
  expect(most.perPath.size).toBe(merchants)
  // Every callback once: none was attempted again (each attempt was answered 200).
  expect(receiver.received).toHaveLength(merchants * each)
  expect(new Set(receiver.received.map((request) => request.eventId)).size).toBe(merchants * each)
}, 120_000)

it(`sends a merchant's backlog in batches: its ${MAX_IN_FLIGHT_PER_MERCHANT} slots at once, then as they free up, slots freed together claimed together`, async () => {
  const { mock, receiver } = await started()
  const pair = await KeyPair.generate(2048)
  const options = await merchant(mock, pair)
  const backlog = 10
  const orders: Array<string> = []
  for (let i = 0; i < backlog; i++) orders.push(await paidOrder(mock, options, `b-${i}`))
  // Without a notify URL each first attempt is refused (and retried only much later)...
  for (const orderSn of orders) {
    await waitUntil(async () => ((await deliveriesOf(mock.url, orderSn))[0]?.attempts.length === 1 ? true : undefined))
  }
  // ...and setting it makes the whole backlog due at once.
  const set = await dev(mock.url, "PUT", `/dev/merchants/${options.appKey}/notify-url`, {
    notifyUrl: `${receiver.url}/b`
  })
  expect(set.json.code).toBe("SUCCESS")

  const timestamp = (n: number) => receiver.received[n]!.headers["x-r-ts"]
  await receiver.waitHeld(MAX_IN_FLIGHT_PER_MERCHANT)
  const first = receiver.received.slice(0, MAX_IN_FLIGHT_PER_MERCHANT).map((_, n) => timestamp(n))
  expect(new Set(first).size).toBe(1)

  // One attempt ends alone: after a short wait for others its slot is used again, by itself.
  receiver.release(1)
  await receiver.waitReceived(MAX_IN_FLIGHT_PER_MERCHANT + 1)
  expect(timestamp(MAX_IN_FLIGHT_PER_MERCHANT)).not.toBe(first[0])
  // Two end together: their slots are claimed, signed and begun together.
  receiver.release(MIN_CLAIM_PER_MERCHANT)
  const next = MAX_IN_FLIGHT_PER_MERCHANT + 1
  await receiver.waitReceived(next + MIN_CLAIM_PER_MERCHANT)
  expect(timestamp(next)).toBe(timestamp(next + 1))
  expect(timestamp(next)).not.toBe(timestamp(MAX_IN_FLIGHT_PER_MERCHANT))
  expect(receiver.most().all).toBe(MAX_IN_FLIGHT_PER_MERCHANT)

  await releaseAll(receiver, backlog - 1 - MIN_CLAIM_PER_MERCHANT)
  expect(receiver.received).toHaveLength(backlog)
  expect(receiver.most().all).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
}, 120_000)
