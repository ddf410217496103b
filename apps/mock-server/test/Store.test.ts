// The store (SQLite): one process per database file, a file only its owner can read (it holds the
// platform private keys), and delivery leases that are a compare-and-set.
import { Effect, Layer, LogLevel, Option } from "effect"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { defaults } from "../src/Config.js"
import { start } from "../src/Server.js"
import { Store } from "../src/store/Store.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPublicKeyPem } from "../src/TestMerchant.js"
import { createOrder, dev, startMock } from "./support/mock.js"

const directory = mkdtempSync(join(tmpdir(), "pc-mock-store-"))
afterAll(() => {
  rmSync(directory, { recursive: true, force: true })
})

describe("a database file", () => {
  it("is made readable and writable by its owner only, WAL file included", async () => {
    const db = join(directory, "nested", "private.sqlite")
    const mock = await startMock({ environment: "production", db })
    try {
      expect(statSync(db).mode & 0o777).toBe(0o600)
      expect(statSync(`${db}-wal`).mode & 0o777).toBe(0o600)
    } finally {
      await mock.close()
    }
  })

  it("serves one mock only: a second one on the same file fails at once and says why; the first keeps serving", async () => {
    const db = join(directory, "shared.sqlite")
    const first = await startMock({ environment: "sandbox", db })
    try {
      const started = Date.now()
      const second = start({ ...defaults, port: 0, db }, { logLevel: LogLevel.None })
      await expect(second).rejects.toThrow(`another mock is using ${db}; stop it or pass another --db`)
      expect(Date.now() - started).toBeLessThan(3_000)

      const body = JSON.stringify({ orderId: `lock-${Date.now()}`, amount: "1.00", currency: "USD" })
      const created = await createOrder(first.url, body)
      expect(created.json.code).toBe("SUCCESS")
      expect((await dev(first.url, "GET", "/healthz")).json.code).toBe("SUCCESS")
    } finally {
      await first.close()
    }
    // Closed, the file is free again.
    const again = await startMock({ environment: "sandbox", db })
    await again.close()
  })
})

describe("delivery leases", () => {
  const withStore = <A, E>(use: (store: Store["Type"]) => Effect.Effect<A, E>) =>
    Effect.runPromise(
      Effect.flatMap(Store, use).pipe(Effect.provide(Layer.fresh(Store.sqlite(":memory:"))), Effect.scoped)
    )

  /** A store with one paid order, hence one pending delivery due at `nowMs`. */
  const withDelivery = (nowMs: number) => (store: Store["Type"]) =>
    Effect.gen(function* () {
      yield* store.ensureMerchant({ appKey: TEST_MERCHANT_APP_KEY, publicKeyPem: testMerchantPublicKeyPem(), nowMs })
      yield* store.createOrder({
        orderSn: () => "PC1",
        appKey: TEST_MERCHANT_APP_KEY,
        outerOrder: "o-1",
        amount: "1.00",
        currency: "USD",
        nowMs,
        expiresAtMs: nowMs + 60_000
      })
      yield* store.moveOrder("PC1", "PAID", nowMs, () => ({
        id: "dlv_1",
        eventId: "evt_1",
        eventType: "order.paid",
        body: "{}",
        nowMs
      }))
      const [delivery] = yield* store.dueDeliveries(nowMs)
      return delivery!
    })

  it("lets only one lease take a due delivery", async () => {
    const taken = await withStore((store) =>
      Effect.gen(function* () {
        yield* withDelivery(1_000)(store)
        return [yield* store.lease("dlv_1", 1_000, 12_000), yield* store.lease("dlv_1", 1_000, 13_000)]
      })
    )
    expect(taken).toEqual([true, false])
  })

  it("keeps a delivery resent during its attempt pending and due at the resend's time", async () => {
    const after = await withStore((store) =>
      Effect.gen(function* () {
        const delivery = yield* withDelivery(1_000)(store)
        expect(yield* store.lease(delivery.id, 1_000, 12_000)).toBe(true)
        yield* store.resend(delivery.id, 2_000)
        const attempt = { at: "1970-01-01T00:00:01.000Z", url: "http://x", httpStatus: 200, error: null }
        yield* store.recordAttempt(
          delivery,
          12_000,
          { ...attempt, keyVersion: 1, durationMs: 5 },
          { status: "delivered" }
        )
        return Option.getOrThrow(yield* store.getDelivery(delivery.id))
      })
    )
    expect(after).toMatchObject({ status: "pending", nextAttemptAtMs: 2_000, attemptCount: 1 })
    expect(after.attempts.map((a) => a.httpStatus)).toEqual([200])
  })

  it("records the attempt's outcome when no resend came", async () => {
    const after = await withStore((store) =>
      Effect.gen(function* () {
        const delivery = yield* withDelivery(1_000)(store)
        expect(yield* store.lease(delivery.id, 1_000, 12_000)).toBe(true)
        const attempt = { at: "1970-01-01T00:00:01.000Z", url: "http://x", httpStatus: 200, error: null }
        yield* store.recordAttempt(
          delivery,
          12_000,
          { ...attempt, keyVersion: 1, durationMs: 5 },
          { status: "delivered" }
        )
        return Option.getOrThrow(yield* store.getDelivery(delivery.id))
      })
    )
    expect(after).toMatchObject({ status: "delivered", nextAttemptAtMs: null, attemptCount: 1 })
  })
})
