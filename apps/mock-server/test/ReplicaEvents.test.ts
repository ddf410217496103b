// `/dev/events` across mock replicas on one PostgreSQL database: a replica's stream shows the
// events about the shared data that every replica produced (orders created and moved, delivery
// attempts), each exactly once, its own included; `request` events stay with the replica that
// answered. Real processes, a real (throwaway) PostgreSQL, a real receiver.
import * as Wire from "@pc/core/Wire"
import { startPostgres } from "@pc/servers"
import { Schema } from "effect"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/TestMerchant.js"
import { type Event, listenEvents } from "./support/events.js"
import { createOrder, dev } from "./support/mock.js"
import { killAllMocks, spawnMock } from "./support/mockProcess.js"
import { type Receiver, startReceiver } from "./support/receiver.js"

const postgres = await startPostgres()
const receivers: Array<Receiver> = []
afterEach(async () => {
  killAllMocks()
  for (const receiver of receivers.splice(0)) await receiver.close()
})
afterAll(() => postgres.stop())

const createdSn = async (url: string, orderId: string): Promise<string> => {
  const created = await createOrder(url, JSON.stringify({ orderId, amount: "3.00", currency: "USD" }))
  expect(created.json.code, JSON.stringify(created.json)).toBe("SUCCESS")
  return Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data).orderSn
}

/** How many events of `type` about `orderSn` a stream holds. */
const count = (events: ReadonlyArray<Event>, type: string, orderSn: string) =>
  events.filter((event) => event.type === type && event.orderSn === orderSn).length

describe("/dev/events across three replicas on one PostgreSQL", () => {
  it("shows every replica's order and delivery events exactly once on each replica; requests stay per replica", async () => {
    const db = await postgres.createDatabase("replica_events")
    const [a, b, c] = await Promise.all(
      [0, 1, 2].map(() => spawnMock(["--env", "production", "--db", db, "--callback-backoff-ms", "300"]))
    )
    const receiver = await startReceiver(200)
    receivers.push(receiver)
    await dev(a!.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: receiver.url })
    const onA = await listenEvents(a!.url)
    const onB = await listenEvents(b!.url)
    try {
      // Orders created on B and C (and two on A itself), each paid through another replica.
      const mocks = [b!, c!, a!]
      const placed = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const creator = mocks[i % 3]!
          return { orderSn: await createdSn(creator.url, `events-${i}`), creator, payer: mocks[(i + 1) % 3]! }
        })
      )
      for (const { orderSn, payer } of placed) {
        const paid = await dev(payer.url, "POST", `/dev/orders/${orderSn}/pay`)
        expect(paid.json.code).toBe("SUCCESS")
      }
      await receiver.waitFor(12, undefined, 60_000)
      for (const { orderSn } of placed) {
        for (const stream of [onA, onB]) {
          await stream.next((event) => event.type === "delivery.attempted" && event.orderSn === orderSn)
          await stream.next((event) => event.type === "order.moved" && event.orderSn === orderSn)
        }
      }

      // A marker order last on each replica: a replica sends its events in order, so once A and B
      // show all three markers, anything else the others sent (a duplicate included) has arrived.
      const markers = await Promise.all([a!, b!, c!].map((mock, i) => createdSn(mock.url, `marker-${i}`)))
      for (const marker of markers) {
        for (const stream of [onA, onB]) {
          await stream.next((event) => event.type === "order.created" && event.orderSn === marker)
        }
      }

      for (const stream of [onA, onB]) {
        for (const { orderSn } of placed) {
          expect(count(stream.events, "order.created", orderSn), `order.created of ${orderSn}`).toBe(1)
          expect(count(stream.events, "order.moved", orderSn), `order.moved of ${orderSn}`).toBe(1)
          expect(count(stream.events, "delivery.attempted", orderSn), `delivery.attempted of ${orderSn}`).toBe(1)
        }
        for (const marker of markers) expect(count(stream.events, "order.created", marker)).toBe(1)
      }
      const moved = onA.events.find((event) => event.type === "order.moved" && event.orderSn === placed[0]!.orderSn)
      expect(moved).toMatchObject({ status: "PAID", at: expect.any(String) })

      // Request events are the answering replica's: A answered 4 creates of its own and its marker's.
      const creates = (events: ReadonlyArray<Event>) =>
        events.filter((event) => event.type === "request" && event.path === "/openapi/v2/order/create")
      expect(creates(onA.events)).toHaveLength(5)
      expect(creates(onB.events)).toHaveLength(5)
    } finally {
      await onA.close()
      await onB.close()
    }
  }, 300_000)
})
