// Crash loop: the mock as a child process on one SQLite file, a receiver that fails at random
// (500s, hangs, 200s), SIGKILL at random points (mid-request, mid-attempt) at least 10 times, a
// restart on the same file each time. At the end every final order has its callback delivered with
// a valid signature, no order is lost, duplicated or half-written, and every attempt the receiver
// saw is recorded. Seeded: CRASH_SEED replays a run, CRASH_KILLS sets the number of kills.
import * as Wire from "@pc/core/Wire"
import { Schema } from "effect"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { deliveriesOf, eventIdOf, platformVerifiers, verifyCallback } from "./support/receiver.js"
import { PC_BIN, spawnNode } from "./support/process.js"
import { findSecrets } from "./support/secrets.js"
import { type Receiver, startReceiver, until } from "@pc/test-support"

const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31))
const KILLS = Math.max(10, Number(process.env.CRASH_KILLS ?? 10))
const PACKAGE = fileURLToPath(new URL("../", import.meta.url))

/** mulberry32: a small seeded generator, so that a run can be replayed from its seed. */
const seeded = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}
const random = seeded(SEED)

let dataDir: string
let receiver: Receiver
const outputs: Array<string> = []
const children = new Set<ChildProcess>()

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "pc-mock-crash-loop-"))
  receiver = await startReceiver(200)
}, 60_000)

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  await receiver?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** Starts the bundled mock on `db` and resolves with its URL once it prints its ready line. */
const spawnMock = async (db: string) => {
  const {
    child,
    output: read,
    exited
  } = spawnNode(
    [
      PC_BIN,
      "mock",
      "--env",
      "production",
      "--port",
      "0",
      "--db",
      db,
      "--callback-backoff-ms",
      "100",
      "--callback-timeout-ms",
      "1000"
    ],
    PACKAGE
  )
  children.add(child)
  const url = await until(
    () => {
      const match = /Payment Connect mock listening on (http:\/\/\S+)/.exec(read())
      if (match !== null) return match[1]!
      if (child.exitCode !== null) throw new Error(`the mock exited before it was ready:\n${read()}`)
      return undefined
    },
    "the mock's ready line",
    { timeoutMs: 60_000, intervalMs: 20 }
  )
  return {
    url,
    kill: async () => {
      child.kill("SIGKILL")
      await exited
      outputs.push(read())
    }
  }
}

/** Orders the test knows were created (their create answered SUCCESS): orderSn by orderId. */
const known = new Map<string, string>()
let sequence = 0

/** A burst of work the kill may land in the middle of: creates, and moves to final states. */
const work = async (url: string) => {
  for (let i = 0; i < 3; i++) {
    const orderId = `loop-${SEED}-${++sequence}`
    const created = await createOrder(url, JSON.stringify({ orderId, amount: "2.50", currency: "USD" }))
    if (created.json.code !== "SUCCESS") throw new Error(`create answered ${created.json.code}`)
    const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
    known.set(orderId, orderSn)
    const verb = random() < 0.7 ? "pay" : "fail"
    await dev(url, "POST", `/dev/orders/${orderSn}/${verb}`)
  }
}

it(`loses nothing across ${KILLS} SIGKILLs at random points`, async () => {
  console.log(`crash loop: seed ${SEED}, ${KILLS} kills (replay with CRASH_SEED=${SEED})`)
  const db = join(dataDir, "mock.sqlite")
  // The receiver fails at random: 500, a hang past the attempt's timeout, or 200.
  receiver.answer(() => {
    const roll = random()
    return roll < 0.35 ? 500 : roll < 0.5 ? "hang" : 200
  })
  let survived = 0
  for (let kill = 0; kill < KILLS; kill++) {
    const mock = await spawnMock(db)
    if (kill === 0) {
      const set = await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
        notifyUrl: receiver.url
      })
      expect(set.json.code).toBe("SUCCESS")
    }
    // The kill lands at a random point: during the burst of requests or during the deliveries.
    const burst = work(mock.url).catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 1_200)))
    await mock.kill()
    await burst
    survived++
  }

  // The last start: the receiver answers 200 from now on, and every final order gets delivered.
  receiver.answer(200)
  const last = await spawnMock(db)
  try {
    const final: Array<{ orderSn: string; status: string }> = []
    for (const [orderId, orderSn] of known) {
      let order = await dev<Wire.Order>(last.url, "GET", `/dev/orders/${orderSn}`)
      // Nothing acknowledged is lost, and nothing is half-written: the order is there, whole.
      expect(order.json.code).toBe("SUCCESS")
      expect(order.json.data).toMatchObject({ orderSn, outerOrder: orderId, amount: "2.50", currency: "USD" })
      if (order.json.data!.status === "CREATED") {
        // Its move was cut off by a kill: make it now, so that every order ends final.
        expect((await dev(last.url, "POST", `/dev/orders/${orderSn}/pay`)).json.code).toBe("SUCCESS")
        order = await dev<Wire.Order>(last.url, "GET", `/dev/orders/${orderSn}`)
      }
      final.push({ orderSn, status: order.json.data!.status })
    }
    const keys = await platformVerifiers(last.url)
    for (const { orderSn, status } of final) {
      expect(["PAID", "FAILED"]).toContain(status)
      const delivery = await until(
        async () => {
          const deliveries = await deliveriesOf(last.url, orderSn)
          // One delivery per move to a final state: never duplicated by a restart.
          expect(deliveries).toHaveLength(1)
          return deliveries[0]!.status === "delivered" ? deliveries[0]! : undefined
        },
        `the delivery of ${orderSn}`,
        { timeoutMs: 60_000, intervalMs: 100 }
      )
      const requests = receiver.received.filter((request) => eventIdOf(request) === delivery.eventId)
      // Every request the receiver got is recorded as an attempt (recorded before it was sent).
      expect(requests.length).toBeGreaterThanOrEqual(1)
      expect(delivery.attempts.length).toBeGreaterThanOrEqual(requests.length)
      expect(delivery.attempts.map((attempt) => attempt.attempt)).toEqual(
        delivery.attempts.map((_, index) => index + 1)
      )
      expect(delivery.attempts[delivery.attempts.length - 1]!.httpStatus).toBe(200)
      // The delivered callback verifies with the published platform key, and says what happened.
      const delivered = requests[requests.length - 1]!
      const verified = await verifyCallback(delivered, TEST_MERCHANT_APP_KEY, keys)
      if (!verified.ok) throw new Error(`callback of ${orderSn} did not verify: ${verified.reason}`)
      expect(verified.event).toMatchObject({ orderSn, status, eventId: delivery.eventId })
    }
    console.log(
      `crash loop: ${survived} SIGKILLs survived, ${final.length} orders, ${receiver.received.length} callback requests, all delivered and verified`
    )
    expect(survived).toBe(KILLS)
    expect(final.length).toBeGreaterThan(0)
  } finally {
    await last.kill()
  }
  expect(findSecrets(outputs)).toEqual([])
}, 600_000)
