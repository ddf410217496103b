// One suite that every store must pass (STYLE.md, "One conformance suite per contract"): SQLite and
// PostgreSQL run the same cases, each on a fresh database.
import { Effect, Layer, Option } from "effect"
import { describe, expect, it } from "vitest"
import type { Store } from "../../src/store/Store.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPublicKeyPem } from "../../src/TestMerchant.js"

export const describeStore = (name: string, freshStore: () => Promise<Layer.Layer<Store, unknown>>) =>
  describe(`store contract: ${name}`, () => {
    const withStore = async <A, E>(use: (store: Store["Type"]) => Effect.Effect<A, E>) => {
      const { Store } = await import("../../src/store/Store.js")
      return Effect.runPromise(
        Effect.flatMap(Store, use).pipe(Effect.provide(Layer.fresh(await freshStore())), Effect.scoped)
      )
    }

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

    it("claims due deliveries once: concurrent claims take disjoint rows, in-flight ones are skipped", async () => {
      const out = await withStore((store) =>
        Effect.gen(function* () {
          const nowMs = 1_000
          yield* store.ensureMerchant({
            appKey: TEST_MERCHANT_APP_KEY,
            publicKeyPem: testMerchantPublicKeyPem(),
            nowMs
          })
          for (let i = 0; i < 6; i++) {
            yield* store.createOrder({
              orderSn: () => `PC${i}`,
              appKey: TEST_MERCHANT_APP_KEY,
              outerOrder: `o-${i}`,
              amount: "1.00",
              currency: "USD",
              nowMs,
              expiresAtMs: nowMs + 60_000
            })
            yield* store.moveOrder(`PC${i}`, "PAID", nowMs, () => ({
              id: `dlv_${i}`,
              eventId: `evt_${i}`,
              eventType: "order.paid",
              body: "{}",
              nowMs
            }))
          }
          const claim = (now: number, until: number, limit: number, exclude: ReadonlyArray<string>) =>
            store.claimDue(now, until, { limit, perMerchant: 100, exclude, busy: [] })
          const skipped = yield* claim(nowMs, 9_000, 10, ["dlv_0"])
          const none = yield* claim(nowMs, 9_000, 10, [])
          // The leases end at 9 000: then every row is due again, once, for concurrent claimers.
          const racing = yield* Effect.all(
            Array.from({ length: 4 }, () => claim(9_000, 20_000, 2, [])),
            { concurrency: "unbounded" }
          )
          // On PostgreSQL a claimer may find rows another one holds locked and skip them (SKIP
          // LOCKED): those stay due, and the next claim takes them.
          const rest = yield* claim(9_000, 20_000, 10, [])
          // One merchant gets at most perMerchant rows of a claim, and none while it is busy.
          const busy = yield* store.claimDue(20_000, 30_000, {
            limit: 10,
            perMerchant: 2,
            exclude: [],
            busy: [TEST_MERCHANT_APP_KEY]
          })
          const fair = yield* store.claimDue(20_000, 30_000, { limit: 10, perMerchant: 2, exclude: [], busy: [] })
          return { skipped, none, racing, rest, busy, fair }
        })
      )
      expect(out.skipped.map((d) => d.id).sort()).toEqual(["dlv_1", "dlv_2", "dlv_3", "dlv_4", "dlv_5"])
      expect(out.skipped.every((d) => d.nextAttemptAtMs === 9_000)).toBe(true)
      expect(out.none.map((d) => d.id)).toEqual(["dlv_0"])
      const taken = [...out.racing.flat(), ...out.rest].map((d) => d.id)
      expect(taken).toHaveLength(6)
      expect(new Set(taken).size).toBe(6)
      expect(out.racing.flat().length).toBeGreaterThanOrEqual(2)
      expect(out.busy).toEqual([])
      expect(out.fair).toHaveLength(2)
    })

    it("creates one order for many concurrent identical creates, and refuses another amount", async () => {
      const results = await withStore((store) =>
        Effect.gen(function* () {
          yield* store.ensureMerchant({
            appKey: TEST_MERCHANT_APP_KEY,
            publicKeyPem: testMerchantPublicKeyPem(),
            nowMs: 1
          })
          let n = 0
          const create = (amount: string) =>
            store.createOrder({
              orderSn: () => `PC${++n}`,
              appKey: TEST_MERCHANT_APP_KEY,
              outerOrder: "same",
              amount,
              currency: "USD",
              nowMs: 1,
              expiresAtMs: 60_000
            })
          const all = yield* Effect.all(
            Array.from({ length: 20 }, () => create("1.00")),
            { concurrency: "unbounded" }
          )
          const other = yield* Effect.either(create("2.00"))
          return { all, other }
        })
      )
      expect(new Set(results.all.map((r) => r.order.orderSn)).size).toBe(1)
      expect(results.all.filter((r) => r.created)).toHaveLength(1)
      expect(results.other._tag).toBe("Left")
    })

    it("bootstraps idempotently: environment, test merchant and the first platform key, asked twice", async () => {
      const out = await withStore((store) =>
        Effect.gen(function* () {
          yield* store.claimEnvironment("production")
          yield* store.claimEnvironment("production")
          const mismatch = yield* Effect.either(store.claimEnvironment("sandbox"))
          const input = { appKey: TEST_MERCHANT_APP_KEY, publicKeyPem: testMerchantPublicKeyPem(), nowMs: 1 }
          yield* Effect.all([store.ensureMerchant(input), store.ensureMerchant(input)], { concurrency: 2 })
          const merchant = yield* store.getMerchant(TEST_MERCHANT_APP_KEY)
          const first = yield* store.currentPlatformKey({ privateKeyPem: "a", publicKeyPem: "A", nowMs: 1 })
          const second = yield* store.currentPlatformKey({ privateKeyPem: "b", publicKeyPem: "B", nowMs: 2 })
          return { mismatch, merchant, first, second }
        })
      )
      expect(out.mismatch).toMatchObject({ _tag: "Left", left: { _tag: "EnvironmentMismatch", found: "production" } })
      expect(Option.getOrThrow(out.merchant).keys.map((k) => k.version)).toEqual([1])
      expect(out.first).toMatchObject({ version: 1, publicKeyPem: "A", status: "current" })
      expect(out.second).toEqual(out.first)
    })

    it("keeps epoch milliseconds exact (past 2^31) and reads them back as numbers", async () => {
      const order = await withStore((store) =>
        Effect.gen(function* () {
          yield* store.ensureMerchant({
            appKey: TEST_MERCHANT_APP_KEY,
            publicKeyPem: testMerchantPublicKeyPem(),
            nowMs: 1
          })
          const created = yield* store.createOrder({
            orderSn: () => "PC-big",
            appKey: TEST_MERCHANT_APP_KEY,
            outerOrder: "big",
            amount: "1.00",
            currency: "USD",
            nowMs: 1_800_000_000_000,
            expiresAtMs: 1_800_000_000_123
          })
          return { created, next: yield* store.nextExpiry }
        })
      )
      expect(order.created.order.expiresAtMs).toBe(1_800_000_000_123)
      expect(order.next).toBe(1_800_000_000_123)
    })
  })
