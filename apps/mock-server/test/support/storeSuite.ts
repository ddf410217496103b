// One suite that every store must pass (STYLE.md, "One conformance suite per contract"): SQLite and
// PostgreSQL run the same cases, each on a fresh database.
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { describe, expect, it } from "vitest"
import type { Store } from "../../src/store/Store.js"
import type { CreatedOrder } from "../../src/store/OrderStore.js"
import { Conflict } from "../../src/store/StoreError.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPublicKeyPem } from "../../src/main/TestMerchant.js"

export const describeStore = (name: string, freshStore: () => Promise<Layer.Layer<Store, unknown>>) =>
  describe(`store contract: ${name}`, () => {
    const withStore = async <A, E>(use: (store: Store["Type"]) => Effect.Effect<A, E>) => {
      const { Store } = await import("../../src/store/Store.js")
      return Effect.runPromise(
        Effect.flatMap(Store, use).pipe(Effect.provide(Layer.fresh(await freshStore())), Effect.scoped)
      )
    }

    /** The test merchant, registered at `nowMs` (idempotent). */
    const testMerchant = (store: Store["Type"], nowMs: number) =>
      store.ensureMerchant({ appKey: TEST_MERCHANT_APP_KEY, publicKeyPem: testMerchantPublicKeyPem(), nowMs })

    /**
     * `count` paid orders of the test merchant (PC0, PC1, ...: the i-th created at `createdAt(i)`
     * and paid at `paidAt(i)`), hence `count` pending deliveries (dlv_0, dlv_1, ...).
     */
    const paidOrders =
      (count: number, createdAt: (i: number) => number, paidAt: (i: number) => number) => (store: Store["Type"]) =>
        Effect.gen(function* () {
          for (let i = 0; i < count; i++) {
            const nowMs = createdAt(i)
            yield* store.createOrder({
              orderSn: () => `PC${i}`,
              appKey: TEST_MERCHANT_APP_KEY,
              outerOrder: `o-${i}`,
              amount: "1.00",
              currency: "USD",
              nowMs,
              expiresAtMs: nowMs + 60_000
            })
            yield* store.moveOrder(`PC${i}`, "PAID", paidAt(i), () => ({
              id: `dlv_${i}`,
              eventId: `evt_${i}`,
              eventType: "order.paid",
              body: "{}",
              nowMs: paidAt(i)
            }))
          }
        })

    /** A store with one paid order, hence one pending delivery due at `nowMs`. */
    const withDelivery = (nowMs: number) => (store: Store["Type"]) =>
      Effect.gen(function* () {
        yield* testMerchant(store, nowMs)
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

    it("records a batch of outcomes in one go, each on its own row: delivered, given up, retried, and one resent meanwhile", async () => {
      const after = await withStore((store) =>
        Effect.gen(function* () {
          yield* testMerchant(store, 1_000)
          yield* paidOrders(
            4,
            () => 1_000,
            () => 1_000
          )(store)
          const claimed = yield* store.claimDue(1_000, 12_000, {
            limit: 10,
            perMerchant: 10,
            limits: new Map(),
            exclude: [],
            inFlight: new Map()
          })
          const byId = new Map(claimed.map((delivery) => [delivery.id, delivery]))
          // The first attempt of dlv_3 comes back delivered, after a resend was asked for meanwhile.
          yield* store.resend("dlv_3", 2_000)
          const attempt = (id: string, httpStatus: number | null, error: string | null) => ({
            delivery: byId.get(id)!,
            leasedUntilMs: 12_000,
            attempt: {
              at: `1970-01-01T00:00:0${id.slice(-1)}.000Z`,
              url: "http://x",
              httpStatus,
              error,
              keyVersion: 1,
              durationMs: 5
            }
          })
          yield* store.recordAttempts([
            { ...attempt("dlv_0", 200, null), next: { status: "delivered" } },
            { ...attempt("dlv_1", 410, "merchant answered HTTP 410"), next: { status: "failed" } },
            {
              ...attempt("dlv_2", 503, "merchant answered HTTP 503"),
              next: { status: "pending", nextAttemptAtMs: 2 ** 33 }
            },
            { ...attempt("dlv_3", 200, null), next: { status: "delivered" } }
          ])
          return yield* Effect.forEach(["dlv_0", "dlv_1", "dlv_2", "dlv_3"], (id) =>
            Effect.map(store.getDelivery(id), Option.getOrThrow)
          )
        })
      )
      const rows = after.map(({ status, nextAttemptAtMs, attemptCount, lastError, deliveredAt, attempts }) => ({
        status,
        nextAttemptAtMs,
        attemptCount,
        lastError,
        deliveredAt,
        attempts: attempts.map((a) => [a.attempt, a.httpStatus])
      }))
      expect(rows).toEqual([
        {
          status: "delivered",
          nextAttemptAtMs: null,
          attemptCount: 1,
          lastError: null,
          deliveredAt: "1970-01-01T00:00:00.000Z",
          attempts: [[1, 200]]
        },
        {
          status: "failed",
          nextAttemptAtMs: null,
          attemptCount: 1,
          lastError: "merchant answered HTTP 410",
          deliveredAt: null,
          attempts: [[1, 410]]
        },
        {
          status: "pending",
          nextAttemptAtMs: 2 ** 33,
          attemptCount: 1,
          lastError: "merchant answered HTTP 503",
          deliveredAt: null,
          attempts: [[1, 503]]
        },
        // Resent: still pending, due at the resend's time; the answer is kept as its delivery time.
        {
          status: "pending",
          nextAttemptAtMs: 2_000,
          attemptCount: 1,
          lastError: null,
          deliveredAt: "1970-01-01T00:00:03.000Z",
          attempts: [[1, 200]]
        }
      ])
    })

    it("keeps each attempt's request headers and body as sent, and none for an attempt that sent nothing", async () => {
      const after = await withStore((store) =>
        Effect.gen(function* () {
          const delivery = yield* withDelivery(1_000)(store)
          const requestHeaders = { "content-type": "application/json", "X-R-Ts": "1000", "X-R-Signature": "c2ln" }
          const requestBody = '{"outerOrder":"注文 \'quoted\' <img>"}'
          expect(yield* store.lease(delivery.id, 1_000, 12_000)).toBe(true)
          const begun = yield* store.beginAttempt(delivery.id, {
            at: "1970-01-01T00:00:01.000Z",
            url: "http://x",
            keyVersion: 1,
            requestHeaders,
            requestBody
          })
          // In flight: what is being sent already shows.
          const inFlight = Option.getOrThrow(yield* store.getDelivery(delivery.id)).attempts
          const outcome = { at: "1970-01-01T00:00:01.000Z", url: "http://x", error: "merchant answered HTTP 500" }
          yield* store.recordAttempt(
            delivery,
            12_000,
            { ...outcome, httpStatus: 500, keyVersion: 1, durationMs: 42 },
            { status: "pending", nextAttemptAtMs: 20_000 },
            begun
          )
          // An attempt with nothing to send (no notify URL) records no request.
          yield* store.recordAttempt(
            delivery,
            12_000,
            {
              at: "1970-01-01T00:00:02.000Z",
              url: null,
              httpStatus: null,
              error: "no url",
              keyVersion: null,
              durationMs: 0
            },
            { status: "pending", nextAttemptAtMs: 30_000 }
          )
          return { inFlight, requestHeaders, requestBody, ...Option.getOrThrow(yield* store.getDelivery(delivery.id)) }
        })
      )
      expect(after.inFlight).toEqual([
        expect.objectContaining({ attempt: 1, requestHeaders: after.requestHeaders, requestBody: after.requestBody })
      ])
      expect(after.attempts).toEqual([
        expect.objectContaining({
          attempt: 1,
          httpStatus: 500,
          durationMs: 42,
          requestHeaders: after.requestHeaders,
          requestBody: after.requestBody
        }),
        expect.objectContaining({ attempt: 2, requestHeaders: null, requestBody: null })
      ])
    })

    it("lists the newest orders, merchants and deliveries first, at most `limit`", async () => {
      const out = await withStore((store) =>
        Effect.gen(function* () {
          yield* testMerchant(store, 1)
          for (const [n, appKey] of ["m-a", "m-b", "m-c"].entries()) {
            yield* store.createMerchant({ appKey, publicKeyPem: `pem-${n}`, notifyUrl: null, nowMs: 10 + n })
          }
          yield* store.addMerchantKey("m-c", "pem-c2", 20)
          yield* store.disableMerchantKey("m-c", 1)
          yield* paidOrders(
            5,
            (i) => 1_000 + i,
            (i) => 2_000 + i
          )(store)
          return {
            orders: yield* store.recentOrders(3),
            merchants: yield* store.recentMerchants(2),
            none: yield* store.recentMerchants(0),
            deliveries: yield* store.deliveriesOf(undefined, 2)
          }
        })
      )
      expect(out.orders.map((o) => o.orderSn)).toEqual(["PC4", "PC3", "PC2"])
      expect(out.orders[0]).toMatchObject({ appKey: TEST_MERCHANT_APP_KEY, status: "PAID" })
      expect(out.merchants).toEqual([
        {
          appKey: "m-c",
          notifyUrl: null,
          keys: [
            { version: 1, status: "disabled", uploadedAt: expect.any(String) },
            { version: 2, status: "active", uploadedAt: expect.any(String) }
          ]
        },
        { appKey: "m-b", notifyUrl: null, keys: [{ version: 1, status: "active", uploadedAt: expect.any(String) }] }
      ])
      expect(out.none).toEqual([])
      expect(out.deliveries.map((d) => d.id)).toEqual(["dlv_4", "dlv_3"])
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
          yield* paidOrders(
            6,
            () => nowMs,
            () => nowMs
          )(store)
          const claim = (now: number, until: number, limit: number, exclude: ReadonlyArray<string>) =>
            store.claimDue(now, until, { limit, perMerchant: 100, limits: new Map(), exclude, inFlight: new Map() })
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
          // One merchant gets at most perMerchant rows of a claim less those it has in flight: none
          // while all its slots are taken, one while one of two is.
          const busy = yield* store.claimDue(20_000, 30_000, {
            limit: 10,
            perMerchant: 2,
            limits: new Map(),
            exclude: [],
            inFlight: new Map([[TEST_MERCHANT_APP_KEY, 2]])
          })
          const partly = yield* store.claimDue(20_000, 30_000, {
            limit: 10,
            perMerchant: 2,
            limits: new Map(),
            exclude: [],
            inFlight: new Map([
              ["another merchant", 2],
              [TEST_MERCHANT_APP_KEY, 1]
            ])
          })
          const fair = yield* store.claimDue(20_000, 30_000, {
            limit: 10,
            perMerchant: 2,
            limits: new Map(),
            exclude: [],
            inFlight: new Map()
          })
          // A merchant with a limit of its own (a fast endpoint's): 5 less 1 in flight, then 1.
          const raised = yield* store.claimDue(30_000, 40_000, {
            limit: 10,
            perMerchant: 2,
            limits: new Map([[TEST_MERCHANT_APP_KEY, 5]]),
            exclude: [],
            inFlight: new Map([[TEST_MERCHANT_APP_KEY, 1]])
          })
          const lowered = yield* store.claimDue(30_000, 40_000, {
            limit: 10,
            perMerchant: 2,
            limits: new Map([[TEST_MERCHANT_APP_KEY, 1]]),
            exclude: [],
            inFlight: new Map()
          })
          return { skipped, none, racing, rest, busy, partly, fair, raised, lowered }
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
      expect(out.partly).toHaveLength(1)
      expect(out.fair).toHaveLength(2)
      expect(out.raised).toHaveLength(4)
      expect(out.lowered).toHaveLength(1)
      // The claim hands over the merchant's notify URL with each row (none set here).
      expect(out.fair.every((d) => d.notifyUrl === null)).toBe(true)
    })

    it("creates one order for many concurrent identical creates, and refuses another amount", async () => {
      const results = await withStore((store) =>
        Effect.gen(function* () {
          yield* testMerchant(store, 1)
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

    it("draws another orderSn when the one drawn is taken, answers a repeat from the stored order, returns the order another writer made meanwhile, and gives up after six draws", async () => {
      const outcome = await withStore((store) =>
        Effect.gen(function* () {
          yield* testMerchant(store, 1)
          const draft = (outerOrder: string, orderSns: ReadonlyArray<string>) => {
            let drawn = 0
            return {
              draws: () => drawn,
              draft: {
                orderSn: () => orderSns[Math.min(drawn++, orderSns.length - 1)]!,
                appKey: TEST_MERCHANT_APP_KEY,
                outerOrder,
                amount: "1.00",
                currency: "USD",
                nowMs: 1,
                expiresAtMs: 60_000
              }
            }
          }
          yield* store.createOrder(draft("first", ["PC-taken"]).draft)
          // Both paths: the Effect, and the one without a fiber (SQLite's direct path, PostgreSQL's Promise).
          const paths = [
            (d: ReturnType<typeof draft>["draft"]) => store.createOrder(d),
            (d: ReturnType<typeof draft>["draft"]) =>
              Effect.suspend(() => {
                const now = store.createOrderNow(d)
                if (now === undefined) return store.createOrder(d)
                const settled = (value: CreatedOrder | Conflict) =>
                  value instanceof Conflict ? Effect.fail(value) : Effect.succeed(value)
                // A write waits for its group's commit: a Promise then.
                return now instanceof Promise
                  ? Effect.flatMap(
                      Effect.promise(() => now),
                      settled
                    )
                  : settled(now)
              })
          ]
          const results = []
          for (const [i, create] of paths.entries()) {
            const second = draft(`second-${i}`, ["PC-taken", `PC-free-${i}`])
            const created = yield* create(second.draft)
            const repeat = draft(`second-${i}`, [`PC-unused-${i}`])
            const repeated = yield* create(repeat.draft)
            const stuck = draft(`stuck-${i}`, ["PC-taken"])
            const exit = yield* Effect.exit(create(stuck.draft))
            // Another writer creates the same orderId between this create's read and its insert:
            // the insert conflicts, and the read after it returns the other writer's order. Only
            // SQLite's direct path writes from inside the draw, synchronously, to stage that; on
            // PostgreSQL the other create joins the same statement, and either may be the one inserted.
            const late = draft(`raced-${i}`, [`PC-late-${i}`])
            const racers: Array<ReturnType<typeof store.createOrderNow>> = []
            const racing = {
              ...late.draft,
              orderSn: () => {
                if (late.draws() === 0) racers.push(store.createOrderNow(draft(`raced-${i}`, [`PC-racer-${i}`]).draft))
                return late.draft.orderSn()
              }
            }
            const lost = yield* create(racing)
            const raced = racers[0] !== undefined
            // The other writer's create ends too before the store closes (on PostgreSQL it may try again).
            for (const racer of racers) if (racer instanceof Promise) yield* Effect.promise(() => racer)
            results.push({
              created: [created.order.orderSn, created.created, second.draws()],
              repeated: [repeated.order.orderSn, repeated.created, repeat.draws()],
              stuck: [
                Exit.isFailure(exit) && Cause.isDie(exit.cause),
                stuck.draws(),
                Option.isSome(yield* store.getOrder("PC-unused-" + i))
              ],
              raced: raced ? [lost.order.orderSn, lost.created, late.draws()] : undefined
            })
          }
          const probe = store.createOrderNow(draft("probe", ["PC-probe"]).draft)
          if (probe instanceof Promise) yield* Effect.promise(() => probe)
          return { direct: probe !== undefined, results }
        })
      )
      expect(outcome.direct).toBe(true)
      outcome.results.forEach((result, i) => {
        expect(result.created).toEqual([`PC-free-${i}`, true, 2])
        // A repeat is answered by the read. On SQLite the read comes before any insert, so it draws
        // no orderSn; on PostgreSQL the read and the insert are one statement, whose insert (of
        // the one orderSn drawn) conflicts and writes nothing.
        expect(result.repeated).toEqual([`PC-free-${i}`, false, name.startsWith("SQLite") ? 0 : 1])
        // Six draws, then a defect (not a storage error): the draws are what failed.
        expect(result.stuck).toEqual([true, 6, false])
        if (name.startsWith("SQLite")) expect(result.raced).toEqual([`PC-racer-${i}`, false, 1])
        // One order for the orderId whichever of the two was inserted: the other's create answers it.
        else if (name.startsWith("PostgreSQL")) expect([`PC-racer-${i}`, `PC-late-${i}`]).toContain(result.raced?.[0])
      })
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
          yield* testMerchant(store, 1)
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
