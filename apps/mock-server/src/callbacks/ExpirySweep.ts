/**
 * The expiry sweep: orders past their time to live are moved to EXPIRED by the delivery loop, when
 * the earliest open order's expiry comes, as last read from the database or since learned.
 */
import type { SqlError } from "@effect/sql/SqlError"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { Orders } from "../domain/orders/Orders.js"
import type { StoreService } from "../store/Store.js"

/**
 * When orders next expire, and the sweep that expires them.
 *
 * @example
 * ```ts
 * const sweep = new ExpirySweep(store, orders)
 * if (sweep.isDue(nowMs)) yield* sweep.run(nowMs)
 * ```
 */
export class ExpirySweep {
  /** When the earliest open order expires; -Infinity: read it again. */
  dueAtMs = Number.NEGATIVE_INFINITY

  constructor(
    private readonly store: StoreService,
    private readonly orders: Context.Tag.Service<typeof Orders>
  ) {}

  /** Whether the sweep has work at `nowMs`. */
  isDue(nowMs: number): boolean {
    return nowMs >= this.dueAtMs
  }

  /** Another replica may have created orders: the next expiry is read again. */
  forgetDue(): void {
    this.dueAtMs = Number.NEGATIVE_INFINITY
  }

  /** An order of this process expires at `dueAtMs` (a move never makes the next expiry earlier). */
  learn(dueAtMs: number): void {
    this.dueAtMs = Math.min(this.dueAtMs, dueAtMs)
  }

  /** Expires every order due at `nowMs` and reads when the next one is. */
  run(nowMs: number): Effect.Effect<void, SqlError> {
    return Effect.gen(this, function* () {
      for (const orderSn of yield* this.store.dueOrders(nowMs)) {
        // An order moved meanwhile (paid, or expired by another replica) is no longer this sweep's.
        yield* this.orders.move(orderSn, "EXPIRED").pipe(Effect.catchTag("ApiError", () => Effect.void))
      }
      this.dueAtMs = (yield* this.store.nextExpiry) ?? Number.POSITIVE_INFINITY
    })
  }
}
