/**
 * One real signed callback on demand: an order created for the configured merchant (through
 * `@pc/client`) and moved on the mock, so the mock sends `order.paid`, `order.failed` or
 * `order.expired`. `pc listen --trigger` goes through here, and `pc trigger`, which also waits for
 * the mock's first delivery attempt of that callback, to show where it went and what the endpoint
 * answered.
 */
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { createOrder } from "./CreateOrder.js"
import type { MockEvent } from "@pc/mock-server"
import { type Delivery, type Order, type OrderMove, using } from "./MockAdmin.js"
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
): Effect.Effect<Triggered, CliFailure> => createThenMove(settings, move, order, () => Effect.void)

/** Creates the order, runs `beforeMove` with its orderSn, then moves it. */
const createThenMove = <R>(
  settings: Settings,
  move: OrderMove,
  order: { readonly amount: string; readonly currency: string },
  beforeMove: (orderSn: string) => Effect.Effect<void, CliFailure, R>
): Effect.Effect<Triggered, CliFailure, R> =>
  Effect.gen(function* () {
    const orderId = `pc-trigger-${Date.now()}-${Math.floor(Math.random() * 1e6)}`
    const created = yield* createOrder(settings, { orderId, amount: order.amount, currency: order.currency })
    yield* beforeMove(created.orderSn)
    const moved = yield* using(settings, (admin) => admin.moveOrder(created.orderSn, move))
    const eventType = eventMoves.find(([, m]) => m === move)![0]
    return { eventType, ...moved, h5Url: created.h5Url }
  })

/** The first delivery attempt of a triggered callback, as the mock recorded it. */
export interface FirstAttempt {
  readonly deliveryId: string
  /** The delivery's status after that attempt: `delivered`, or `pending` with a retry due. */
  readonly status: Delivery["status"]
  readonly nextAttemptAt: string | null
  readonly attempt: Delivery["attempts"][number]
}

/**
 * Triggers as {@link triggerEvent} does, and waits for the mock's first delivery attempt of the
 * callback: `/dev/events` is followed from before the move, and its `delivery.attempted` event (sent
 * once the attempt's outcome is recorded) says when to read that attempt. `delivery` is null when
 * none is recorded within `timeout`.
 *
 * Fails with a `CliFailure` as {@link triggerEvent} does, and when the mock's events cannot be followed.
 *
 * @example
 * ```ts
 * import { triggerAndWatch } from "./TriggerEvent.js"
 *
 * triggerAndWatch(settings, "pay", { amount: "10.00", currency: "USD" }, "30 seconds")
 * ```
 */
export const triggerAndWatch = (
  settings: Settings,
  move: OrderMove,
  order: { readonly amount: string; readonly currency: string },
  timeout: Duration.DurationInput
): Effect.Effect<Triggered & { readonly delivery: FirstAttempt | null }, CliFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      let watcher: Fiber.RuntimeFiber<Option.Option<MockEvent>, CliFailure> | undefined
      const triggered = yield* createThenMove(settings, move, order, (orderSn) =>
        Effect.gen(function* () {
          const connected = yield* Deferred.make<void>()
          const watching = yield* using(settings, (admin) =>
            admin.events(Effect.asVoid(Deferred.succeed(connected, undefined))).pipe(
              Stream.filter((event) => event.type === "delivery.attempted" && event.orderSn === orderSn),
              Stream.runHead
            )
          ).pipe(Effect.forkScoped)
          watcher = watching
          // Moved only once the mock streams to us, so its attempt cannot come before we listen.
          yield* Effect.raceFirst(Deferred.await(connected), Effect.asVoid(Fiber.await(watching)))
          if (Option.isSome(yield* Fiber.poll(watching))) yield* Effect.asVoid(Fiber.join(watching))
        })
      )
      const attempted = yield* Fiber.join(watcher!).pipe(Effect.timeoutOption(timeout), Effect.map(Option.flatten))
      let delivery: FirstAttempt | null = null
      if (Option.isSome(attempted) && attempted.value.type === "delivery.attempted") {
        const { deliveryId } = attempted.value
        const found = (yield* using(settings, (admin) => admin.callbacks(triggered.orderSn))).find(
          (d) => d.id === deliveryId
        )
        if (found !== undefined && found.attempts.length > 0) {
          delivery = {
            deliveryId,
            status: found.status,
            nextAttemptAt: found.nextAttemptAt,
            attempt: found.attempts[0]!
          }
        }
      }
      return { ...triggered, delivery }
    })
  )
