// Idempotency under load (CONTRACT.md "Create order"): the database, not luck, decides which of
// concurrent creates wins. Run against an in-memory database and a file in WAL mode (production).
import { Canonical, type Crypto, Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { randomUUID } from "node:crypto"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { dev, testMerchantSigner } from "./support/mock.js"
import { type Mock, startMock } from "@pc/test-support/mock"

interface Outcome {
  readonly status: number
  readonly code: string
  readonly orderSn: string | undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

let signer: Crypto.Signer

/** One signed create-order request, as its own merchant call (fresh timestamp and signature). */
const create = async (baseUrl: string, body: string): Promise<Outcome> => {
  const timestamp = String(Date.now())
  const signature = await signer.sign(
    Canonical.requestStringToSign({
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      appKey: TEST_MERCHANT_APP_KEY,
      timestamp,
      body
    })
  )
  const response = await fetch(`${baseUrl}${Wire.CREATE_ORDER_PATH}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [Headers.RequestHeaders.appKey]: TEST_MERCHANT_APP_KEY,
      [Headers.RequestHeaders.timestamp]: timestamp,
      [Headers.RequestHeaders.keyVersion]: "1",
      [Headers.RequestHeaders.signature]: signature
    },
    body
  })
  const json: unknown = await response.json()
  if (!isRecord(json) || typeof json.code !== "string") throw new Error(`not an envelope: ${JSON.stringify(json)}`)
  const orderSn = isRecord(json.data) && typeof json.data.orderSn === "string" ? json.data.orderSn : undefined
  return { status: response.status, code: json.code, orderSn }
}

const tally = (outcomes: ReadonlyArray<Outcome>) => {
  const counts: Record<string, number> = {}
  for (const outcome of outcomes)
    counts[`${outcome.status} ${outcome.code}`] = (counts[`${outcome.status} ${outcome.code}`] ?? 0) + 1
  return counts
}

const directory = mkdtempSync(join(tmpdir(), "pc-mock-concurrency-"))

beforeAll(async () => {
  signer = await testMerchantSigner()
})
afterAll(() => {
  rmSync(directory, { recursive: true, force: true })
})

describe.each([
  { storage: "in-memory SQLite", db: ":memory:" },
  { storage: "a SQLite file in WAL mode", db: join(directory, "production.sqlite") }
])("concurrent creates in production, on $storage", ({ db }) => {
  let mock: Mock

  beforeAll(async () => {
    mock = await startMock({ environment: "production", db })
  })
  afterAll(async () => {
    await mock?.close()
  })

  it("uses the database it was given", () => {
    expect(mock.db).toBe(db)
    if (db !== ":memory:") {
      expect(existsSync(db)).toBe(true)
      // Journal mode WAL: the write-ahead log sits beside the database while it is open.
      expect(existsSync(`${db}-wal`)).toBe(true)
    }
  })

  it("200 parallel identical creates make exactly one order", async () => {
    const body = JSON.stringify({ orderId: `C-same-${randomUUID()}`, amount: "10.00", currency: "USD" })
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => create(mock.url, body)))
    expect(tally(outcomes)).toEqual({ "200 SUCCESS": 200 })
    const orderSns = new Set(outcomes.map((outcome) => outcome.orderSn))
    expect(orderSns.size).toBe(1)
    const [orderSn] = orderSns
    const order = await dev<{ amount: string; status: string }>(mock.url, "GET", `/dev/orders/${orderSn}`)
    expect(order.json.data).toMatchObject({ amount: "10.00", status: "CREATED" })
  })

  it("200 parallel distinct creates make 200 distinct orders", async () => {
    const run = randomUUID().slice(0, 8)
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        create(mock.url, JSON.stringify({ orderId: `C-distinct-${run}-${i}`, amount: `${i + 1}.00`, currency: "USD" }))
      )
    )
    expect(tally(outcomes)).toEqual({ "200 SUCCESS": 200 })
    expect(new Set(outcomes.map((outcome) => outcome.orderSn)).size).toBe(200)
    // Each order kept its own amount.
    for (const i of [0, 99, 199]) {
      const order = await dev<{ amount: string; outerOrder: string }>(
        mock.url,
        "GET",
        `/dev/orders/${outcomes[i]!.orderSn}`
      )
      expect(order.json.data).toMatchObject({ amount: `${i + 1}.00`, outerOrder: `C-distinct-${run}-${i}` })
    }
  })

  it("100 parallel creates of one orderId with two amounts: one amount wins, the rest is duplicateOrder", async () => {
    const orderId = `C-race-${randomUUID()}`
    const amounts = ["10.00", "20.00"]
    const bodies = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({ orderId, amount: amounts[i % 2], currency: "USD" })
    )
    const outcomes = await Promise.all(bodies.map((body) => create(mock.url, body)))
    for (const outcome of outcomes) expect(outcome.status).toBeLessThan(500)
    const counts = tally(outcomes)
    expect(Object.keys(counts).sort()).toEqual(["200 SUCCESS", "409 duplicateOrder"])
    expect(counts["200 SUCCESS"]).toBe(50)
    expect(counts["409 duplicateOrder"]).toBe(50)
    const winners = outcomes.filter((outcome) => outcome.code === "SUCCESS")
    expect(new Set(winners.map((outcome) => outcome.orderSn)).size).toBe(1)
    const winningAmounts = new Set(
      outcomes.flatMap((outcome, i) => (outcome.code === "SUCCESS" ? [JSON.parse(bodies[i]!).amount as string] : []))
    )
    expect(winningAmounts.size).toBe(1)
    // Every request with the winning amount succeeded, every one with the other amount was refused.
    outcomes.forEach((outcome, i) => {
      const amount = JSON.parse(bodies[i]!).amount as string
      expect(outcome.code).toBe(winningAmounts.has(amount) ? "SUCCESS" : "duplicateOrder")
    })
    const order = await dev<{ amount: string }>(mock.url, "GET", `/dev/orders/${winners[0]!.orderSn}`)
    expect(winningAmounts.has(order.json.data!.amount)).toBe(true)
  })
})

describe("a SQLite file keeps its orders across a restart", () => {
  it("returns the same orderSn for the same orderId after the mock restarts on the same file", async () => {
    const db = join(directory, "restart.sqlite")
    const body = JSON.stringify({ orderId: `C-restart-${randomUUID()}`, amount: "5.00", currency: "USD" })
    const first = await startMock({ environment: "production", db })
    let before: Outcome
    try {
      before = await create(first.url, body)
      expect(before.code).toBe("SUCCESS")
    } finally {
      await first.close()
    }
    const second = await startMock({ environment: "production", db })
    try {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => create(second.url, body)))
      expect(tally(outcomes)).toEqual({ "200 SUCCESS": 20 })
      expect(new Set(outcomes.map((outcome) => outcome.orderSn))).toEqual(new Set([before.orderSn]))
    } finally {
      await second.close()
    }
  })
})
