// Several mock processes on one PostgreSQL database (CONTRACT.md "Running the mock"): the same
// platform keys, create-order idempotency across replicas, each callback delivered once by one
// replica, a replica killed holding deliveries loses none, restarting every replica loses nothing,
// and every replica's `/dev/events` shows the events of all of them, each once. Real processes, a
// real (throwaway) PostgreSQL, a real receiver.
import * as Wire from "@pc/core/Wire"
import { startPostgres } from "@pc/servers"
import { Schema } from "effect"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { fastAnswerMs, START_IN_FLIGHT_PER_MERCHANT } from "../src/callbacks/EndpointSpeeds.js"
import { type HoldingReceiver, startHoldingReceiver } from "./support/holdingReceiver.js"
import { createOrder, dev } from "./support/mock.js"
import { killAllMocks, type MockProcess, spawnMock } from "./support/mockProcess.js"
import { type Receiver, startReceiver, until, type Event, listenEvents } from "@pc/test-support"

const postgres = await startPostgres()
const receivers: Array<Receiver> = []
const closing: Array<HoldingReceiver> = []
afterEach(async () => {
  killAllMocks()
  for (const receiver of [...receivers.splice(0), ...closing.splice(0)]) await receiver.close()
})
afterAll(() => postgres.stop())

const CALLBACK_TIMEOUT_MS = 3_000
const replicas = (db: string, n: number) =>
  Promise.all(
    Array.from({ length: n }, () =>
      spawnMock([
        "--env",
        "production",
        "--db",
        db,
        "--callback-backoff-ms",
        "300",
        "--callback-timeout-ms",
        String(CALLBACK_TIMEOUT_MS)
      ])
    )
  )
const stopAll = async (mocks: ReadonlyArray<MockProcess>, signal: NodeJS.Signals) => {
  for (const mock of mocks) mock.child.kill(signal)
  await Promise.all(mocks.map((mock) => mock.exited))
}

/** Creates an order; a dropped connection is retried, as a client does (create-order is idempotent). */
const createdSn = async (url: string, orderId: string, amount = "7.50"): Promise<string> => {
  const body = JSON.stringify({ orderId, amount, currency: "USD" })
  let created: Awaited<ReturnType<typeof createOrder>> | undefined
  for (let attempt = 1; created === undefined; attempt++) {
    created = await createOrder(url, body).catch((error: unknown) => {
      if (attempt >= 3) throw error
      return undefined
    })
  }
  expect(created.json.code, JSON.stringify(created.json)).toBe("SUCCESS")
  return Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data).orderSn
}
/** How many events of `type` about `orderSn` a stream holds. */
const count = (events: ReadonlyArray<Event>, type: string, orderSn: string) =>
  events.filter((event) => event.type === type && event.orderSn === orderSn).length
const eventIdOf = (body: string) => (JSON.parse(body) as { eventId: string }).eventId
const receiverFor = async (mock: MockProcess) => {
  const receiver = await startReceiver(200)
  receivers.push(receiver)
  const set = await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
    notifyUrl: receiver.url
  })
  expect(set.json.code).toBe("SUCCESS")
  return receiver
}

describe("three mock replicas on one PostgreSQL", () => {
  let databases = 0
  const freshDatabase = () => postgres.createDatabase(`replicas_${++databases}`)

  it("share platform keys, make one order of 200 parallel identical creates, deliver each callback once, and lose nothing on restart", async () => {
    const db = await freshDatabase()
    // All three start together on the empty database: one migrates, the others wait.
    const mocks = await replicas(db, 3)
    const keys = await Promise.all(mocks.map((mock) => dev<Array<unknown>>(mock.url, "GET", "/dev/platform-keys")))
    expect(keys[0]!.json.data).toHaveLength(1)
    expect(keys[1]!.json.data).toEqual(keys[0]!.json.data)
    expect(keys[2]!.json.data).toEqual(keys[0]!.json.data)

    // 200 identical creates spread over the replicas, all at once: one order.
    const orderId = `same-${Date.now()}`
    const sns = await Promise.all(Array.from({ length: 200 }, (_, i) => createdSn(mocks[i % 3]!.url, orderId)))
    expect(new Set(sns).size).toBe(1)
    const other = await createOrder(mocks[1]!.url, JSON.stringify({ orderId, amount: "8.00", currency: "USD" }))
    expect(other.json.code).toBe("duplicateOrder")

    // 100 orders created and paid through different replicas: each callback once.
    const receiver = await receiverFor(mocks[0]!)
    const orders = await Promise.all(Array.from({ length: 100 }, (_, i) => createdSn(mocks[i % 3]!.url, `paid-${i}`)))
    await Promise.all(orders.map((sn, i) => dev(mocks[(i + 1) % 3]!.url, "POST", `/dev/orders/${sn}/pay`)))
    await receiver.waitFor(100, undefined, 60_000)
    const deliveries = await Promise.all(
      orders.map((sn, i) =>
        until(
          async () => {
            const listed = await dev<Array<{ status: string; attempts: Array<unknown> }>>(
              mocks[i % 3]!.url,
              "GET",
              `/dev/callbacks?orderSn=${sn}`
            )
            const [delivery] = listed.json.data ?? []
            return delivery?.status === "delivered" ? delivery : undefined
          },
          `the delivery of ${sn}`,
          { timeoutMs: 30_000, intervalMs: 100 }
        )
      )
    )
    expect(deliveries.filter((delivery) => delivery.attempts.length !== 1)).toEqual([])
    const eventIds = receiver.received.map((request) => eventIdOf(request.body))
    expect(eventIds).toHaveLength(100)
    expect(new Set(eventIds).size).toBe(100)

    // Every replica killed at once, three new ones: everything is still there.
    await stopAll(mocks, "SIGKILL")
    const again = await replicas(db, 3)
    const keysAfter = await dev<Array<unknown>>(again[2]!.url, "GET", "/dev/platform-keys")
    expect(keysAfter.json.data).toEqual(keys[0]!.json.data)
    expect(await createdSn(again[0]!.url, orderId)).toBe(sns[0])
    const states = await Promise.all(
      orders.map((sn, i) => dev<{ status: string }>(again[i % 3]!.url, "GET", `/dev/orders/${sn}`))
    )
    expect(states.every((state) => state.json.data?.status === "PAID")).toBe(true)
    expect(receiver.received).toHaveLength(100)
  }, 420_000)

  it("a key disabled through one replica is refused by another at its next request (no per-replica key cache)", async () => {
    const [a, b] = await replicas(await freshDatabase(), 2)
    // b has authenticated with the key before: whatever it kept of it must not outlive the disable.
    await createdSn(b!.url, `before-disable-${Date.now()}`)
    const disabled = await dev(a!.url, "POST", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/keys/1/disable`)
    expect(disabled.json.code).toBe("SUCCESS")
    const refused = await createOrder(
      b!.url,
      JSON.stringify({ orderId: `after-${Date.now()}`, amount: "1.00", currency: "USD" })
    )
    expect(refused.status).toBe(401)
    expect(refused.json.code).toBe("signError")
    expect(refused.json.msg).toMatch(/key version 1 is disabled/)
  })

  it("two dispatchers on one database: both send at once, no attempt twice at once, every delivery once", async () => {
    const db = await freshDatabase()
    // Held requests must not time out (nor their leases end) while the test holds them.
    const timeoutMs = 60_000
    const mocks = await Promise.all(
      Array.from({ length: 2 }, () =>
        spawnMock([
          "--env",
          "production",
          "--db",
          db,
          "--callback-timeout-ms",
          String(timeoutMs),
          "--callback-backoff-ms",
          "300"
        ])
      )
    )
    const receiver = await startHoldingReceiver()
    closing.push(receiver)
    const set = await dev(mocks[0]!.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
      notifyUrl: `${receiver.url}/callbacks`
    })
    expect(set.json.code).toBe("SUCCESS")
    const total = 24
    const orders = await Promise.all(Array.from({ length: total }, (_, i) => createdSn(mocks[i % 2]!.url, `two-${i}`)))
    await Promise.all(orders.map((sn, i) => dev(mocks[i % 2]!.url, "POST", `/dev/orders/${sn}/pay`)))
    // One process sends at most START_IN_FLIGHT_PER_MERCHANT of one merchant at once while its
    // endpoint is slow: twice that held at once means both dispatchers are sending.
    await receiver.waitHeld(2 * START_IN_FLIGHT_PER_MERCHANT)
    let answered = 0
    while (answered < total) {
      await receiver.waitHeld(1)
      // Answered slowly: each process keeps the merchant at its start limit.
      const slowMs = fastAnswerMs(timeoutMs) + 50
      await new Promise((resolve) => setTimeout(resolve, slowMs))
      answered += receiver.releaseHeldFor(slowMs)
    }
    expect(receiver.most().perEvent).toBe(1)
    expect(receiver.most().all).toBe(2 * START_IN_FLIGHT_PER_MERCHANT)
    expect(receiver.received).toHaveLength(total)
    expect(new Set(receiver.received.map((request) => request.eventId)).size).toBe(total)
    for (const sn of orders) {
      const delivered = await until(
        async () => {
          const [delivery] =
            (
              await dev<Array<{ status: string; attempts: Array<unknown> }>>(
                mocks[1]!.url,
                "GET",
                `/dev/callbacks?orderSn=${sn}`
              )
            ).json.data ?? []
          return delivery?.status === "delivered" ? delivery : undefined
        },
        "a condition",
        { timeoutMs: 10_000, intervalMs: 10 }
      )
      expect(delivered.attempts).toHaveLength(1)
    }
  }, 300_000)

  it("a replica SIGKILLed while holding deliveries: the others deliver them once its lease ends", async () => {
    const db = await freshDatabase()
    const [holder] = await replicas(db, 1)
    const receiver = await receiverFor(holder!)
    // The receiver holds every first request open: the attempts are in flight in `holder` alone.
    receiver.answer((_, n) => (n < 5 ? "hang" : 200))
    const orders = await Promise.all(Array.from({ length: 5 }, (_, i) => createdSn(holder!.url, `held-${i}`)))
    for (const sn of orders) await dev(holder!.url, "POST", `/dev/orders/${sn}/pay`)
    const held = await receiver.waitFor(5, undefined, 30_000)
    holder!.child.kill("SIGKILL")
    await holder!.exited

    const others = await replicas(db, 2)
    const delivered = await receiver.waitFor(10, undefined, 60_000)
    const again = delivered.slice(5)
    expect(new Set(again.map((r) => eventIdOf(r.body)))).toEqual(new Set(held.map((r) => eventIdOf(r.body))))
    for (const request of again) {
      const first = held.find((r) => eventIdOf(r.body) === eventIdOf(request.body))!
      // Not before the dead replica's lease (the attempt's timeout) had ended.
      expect(request.receivedAtMs - first.receivedAtMs).toBeGreaterThanOrEqual(CALLBACK_TIMEOUT_MS)
    }
    for (const sn of orders) {
      const delivery = await until(
        async () => {
          const listed = await dev<Array<{ status: string }>>(others[0]!.url, "GET", `/dev/callbacks?orderSn=${sn}`)
          return listed.json.data?.[0]?.status === "delivered" ? listed.json.data[0] : undefined
        },
        `the delivery of ${sn}`,
        { timeoutMs: 30_000, intervalMs: 100 }
      )
      expect(delivery.status).toBe("delivered")
    }
  }, 300_000)
})

describe("/dev/events across three replicas on one PostgreSQL", () => {
  it("shows every replica's order and delivery events exactly once on each replica; requests stay per replica", async () => {
    const db = await postgres.createDatabase("replica_events")
    const [a, b, c] = await replicas(db, 3)
    const receiver = await receiverFor(a!)
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
