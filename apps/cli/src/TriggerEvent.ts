/**
 * One real signed callback on demand: an order created for the configured merchant (through
 * `@pc/client`) and moved on the mock, so the mock sends `order.paid`, `order.failed` or
 * `order.expired`. `pc trigger` and `pc listen --trigger` both go through here.
 */
import { Effect } from "effect"
import { createOrder } from "./CreateOrder.js"
import { type Order, type OrderMove, using } from "./MockAdmin.js"
import type { CliFailure } from "./Output.js"
import type { Settings } from "./Settings.js"

/** The events a trigger can produce, each with the move on the mock that makes it. */
export const eventMoves: ReadonlyArray<[eventType: string, move: OrderMove]> = [
  ["order.paid", "pay"],
  ["order.failed", "fail"],
  ["order.expired", "expire"]
]

/** The order a trigger creates unless told otherwise. */
export const triggeredOrderDefaults = { amount: "10.00", currency: "USD" } as const

/** What a trigger did: the event and the moved order, with its checkout URL. */
export type Triggered = Order & { readonly eventType: string; readonly h5Url: string }

/**
 * Creates an order as the configured merchant and moves it, so the mock sends `eventType`'s callback.
 *
 * Fails with a `CliFailure`: usage (no appKey or key file), refused (the service said no: signError
 * with the client's hint, ...), network (the mock is not there).
 *
 * @example
 * ```ts
 * import { triggerEvent } from "./TriggerEvent.js"
 *
 * triggerEvent(settings, "pay", { amount: "10.00", currency: "USD" })
 * ```
 */
export const triggerEvent = (
  settings: Settings,
  move: OrderMove,
  order: { readonly amount: string; readonly currency: string }
): Effect.Effect<Triggered, CliFailure> =>
  Effect.gen(function* () {
    const orderId = `pc-trigger-${Date.now()}-${Math.floor(Math.random() * 1e6)}`
    const created = yield* createOrder(settings, { orderId, amount: order.amount, currency: order.currency })
    const moved = yield* using(settings, (admin) => admin.moveOrder(created.orderSn, move))
    const eventType = eventMoves.find(([, m]) => m === move)![0]
    return { eventType, ...moved, h5Url: created.h5Url }
  })
