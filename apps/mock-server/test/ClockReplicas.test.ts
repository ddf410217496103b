// The mock's clock on PostgreSQL (CONTRACT.md "Faults and time": replicas share one clock): two
// mock processes on one database, a real (throwaway) PostgreSQL, a real receiver. A move made
// through one replica is the other's clock too, and the order it expires is expired once.
import * as Wire from "@pc/core/Wire"
import { startPostgres } from "@pc/servers"
import { Schema } from "effect"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { killAllMocks, spawnMock } from "./support/mockProcess.js"
import { startReceiver } from "@pc/test-support"
import { orderSnOf } from "./support/receiver.js"

const postgres = await startPostgres()
afterEach(() => killAllMocks())
afterAll(() => postgres.stop())

const decodeClock = Schema.decodeUnknownSync(Schema.Struct({ now: Schema.String, offsetMs: Schema.Int }))

describe("the clock of replicas on PostgreSQL", () => {
  it("is one clock: a move through one replica is seen by the other, and expires an order once", async () => {
    const db = await postgres.createDatabase("clock_replicas")
    const [a, b] = await Promise.all(
      [0, 1].map(() => spawnMock(["--env", "production", "--db", db, "--callback-backoff-ms", "300"]))
    )
    const receiver = await startReceiver(200)
    try {
      await dev(a!.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: receiver.url })
      const body = JSON.stringify({ orderId: `clock-replicas-${process.pid}`, amount: "3.00", currency: "USD" })
      const created = await createOrder(b!.url, body)
      const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)

      const moved = decodeClock((await dev(a!.url, "POST", "/dev/clock/advance", { ms: 31 * 60_000 })).json.data)
      expect(moved.offsetMs).toBe(31 * 60_000)
      const [seenByA, seenByB] = await Promise.all(
        [a!, b!].map(async (mock) => decodeClock((await dev(mock.url, "GET", "/dev/clock")).json.data))
      )
      expect(seenByA!.offsetMs).toBe(31 * 60_000)
      expect(seenByB!.offsetMs).toBe(31 * 60_000)
      expect(Math.abs(Date.parse(seenByA!.now) - Date.parse(seenByB!.now))).toBeLessThan(1_000)

      // Moves through both replicas add up.
      await dev(b!.url, "POST", "/dev/clock/advance", { ms: 1_000 })
      expect(decodeClock((await dev(a!.url, "GET", "/dev/clock")).json.data).offsetMs).toBe(31 * 60_000 + 1_000)

      const [callback] = await receiver.waitFor(1, (request) => orderSnOf(request) === orderSn, 3_000)
      expect(JSON.parse(callback!.body)).toMatchObject({ eventType: "order.expired", status: "EXPIRED" })
      // Either replica may send it, but only one does.
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(receiver.received.filter((request) => orderSnOf(request) === orderSn)).toHaveLength(1)
    } finally {
      await receiver.close()
    }
  })
})
