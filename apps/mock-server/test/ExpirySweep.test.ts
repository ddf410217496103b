// When the expiry sweep runs (ExpirySweep.ts), with a real in-memory store behind it.
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { ExpirySweep } from "../src/callbacks/ExpirySweep.js"
import { defaults, MockConfig } from "../src/config/Config.js"
import { Orders, PublicUrl } from "../src/domain/orders/Orders.js"
import { Store } from "../src/store/Store.js"

const services = Orders.layer.pipe(
  Layer.provideMerge(Store.sqlite(":memory:")),
  Layer.provide(Layer.succeed(MockConfig, { ...defaults, environment: "production", port: 0, db: ":memory:" })),
  Layer.provide(Layer.succeed(PublicUrl, "http://127.0.0.1:4010"))
)

const withSweep = <A>(use: (sweep: ExpirySweep) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.provide(
        Effect.flatMap(Effect.all([Store, Orders]), ([store, orders]) => use(new ExpirySweep(store, orders))),
        services
      )
    )
  )

describe("ExpirySweep", () => {
  it("is due until it has read the next expiry, and not again until then", async () => {
    await withSweep((sweep) =>
      Effect.gen(function* () {
        expect(sweep.isDue(0)).toBe(true)
        yield* sweep.run(1_000)
        // No open order: nothing expires until an order is created.
        expect(sweep.dueAtMs).toBe(Number.POSITIVE_INFINITY)
        expect(sweep.isDue(Number.MAX_SAFE_INTEGER)).toBe(false)
      })
    )
  })

  it("learns an earlier expiry from this process, and reads again once told to forget", async () => {
    await withSweep((sweep) =>
      Effect.gen(function* () {
        yield* sweep.run(1_000)
        sweep.learn(5_000)
        sweep.learn(9_000)
        expect(sweep.dueAtMs).toBe(5_000)
        expect(sweep.isDue(4_999)).toBe(false)
        expect(sweep.isDue(5_000)).toBe(true)
        sweep.forgetDue()
        expect(sweep.isDue(0)).toBe(true)
      })
    )
  })
})
