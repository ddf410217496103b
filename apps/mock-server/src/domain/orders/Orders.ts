/**
 * Orders: creation with the contract's validation and idempotency, and the moves to a final state
 * (PAID, FAILED, EXPIRED), each of which records its callback delivery in the same transaction.
 */
import { Money } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { randomInt, randomUUID } from "node:crypto"
import { MockConfig } from "../../config/Config.js"
import { eventPublisher, eventPublisherNow } from "../../events/MockEvents.js"
import { paramErrorOf } from "../DecodeBody.js"
import { Faults } from "../Faults.js"
import { ApiError, notFound, paramError } from "../ApiError.js"
import type * as Step from "../Step.js"
import { compactTime } from "../../store/IsoTime.js"
import type { CreatedOrder, OrderDraft } from "../../store/OrderStore.js"
import { Conflict, isSqlError } from "../../store/StoreError.js"
import { Store } from "../../store/Store.js"
import type { OrderRecord } from "../../store/Records.js"

/** The base of the absolute URLs the server hands out (known once the server is bound). */
export class PublicUrl extends Context.Tag("@pc/mock-server/PublicUrl")<PublicUrl, string>() {}

const EVENT_TYPE = { PAID: "order.paid", FAILED: "order.failed", EXPIRED: "order.expired" } as const

// Wire.CreateOrderRequest's fields without its struct-level amount check: the amount is parsed
// once, below, and that one parse gives both the verdict and the canonical amount that is stored.
// Options bound once: passed per call, they were merged with the parser's own on every create.
const decodeFields = Schema.decodeUnknownEither(
  Schema.Struct({ orderId: Wire.OrderId, amount: Wire.AmountInput, currency: Wire.Currency }),
  { errors: "first", onExcessProperty: "ignore" }
)

/** A create-order request that passed validation, its amount canonical (`"10.50"` for USD 10.5). */
export interface ValidOrderRequest {
  readonly orderId: string
  readonly amount: string
  readonly currency: string
}

/**
 * Validates a create-order body (contract "Create order") and writes its amount canonically. Fails
 * with a paramError whose msg starts with the field it is about (`amount: ...`); unknown fields are
 * ignored.
 */
export const validate = (body: Record<string, unknown>): Either.Either<ValidOrderRequest, ApiError> =>
  Either.flatMap(
    Either.mapLeft(decodeFields(body), (error) => paramErrorOf(error)),
    (fields) => {
      const amount = Money.canonicalAmount(fields.amount, fields.currency)
      return amount.ok
        ? Either.right({ orderId: fields.orderId, amount: amount.amount, currency: fields.currency })
        : Either.left(paramError(`amount: ${amount.error.message}`))
    }
  )

/** An order as the outside sees it (the developer menu, callbacks): without the store's own fields. */
export const publicOrder = (order: OrderRecord): Wire.Order => ({
  orderSn: order.orderSn,
  outerOrder: order.outerOrder,
  amount: order.amount,
  currency: order.currency,
  status: order.status,
  createdAt: order.createdAt,
  updatedAt: order.updatedAt
})

/** Builds the callback body: compact JSON, fields in the contract's order. */
export const callbackBody = (eventId: string, order: OrderRecord): string =>
  JSON.stringify({
    eventId,
    eventType: EVENT_TYPE[order.status as keyof typeof EVENT_TYPE],
    ...publicOrder(order)
  })

/**
 * `PC`, the time of creation to the millisecond (`YYYYMMDDHHmmssSSS`, UTC), then 12 uniformly random
 * digits: unguessable, and the store draws again on the (astronomically rare) repeat. Time first, so
 * that orders made together sort together: their keys go to the same end of the orders' primary-key
 * index, and a group of creates committed at once writes one or two of its pages instead of one
 * each, as random keys did (bench/RESULTS.md, "Order numbers in time order").
 */
const orderSnFor = (nowMs: number): string =>
  `PC${compactTime(nowMs)}${String(randomInt(0, 1_000_000_000_000)).padStart(12, "0")}`

/** What a create-order answers, and whether it made a new order (or found its idempotent twin). */
export interface CreateAnswer {
  readonly created: boolean
  readonly result: Wire.CreateOrderResult
}

/**
 * Hears of every committed create and move, with when the new work falls due and the time of the
 * change; returns what it must still do (wake a sleeping loop) as an Effect, or `undefined`.
 */
export type ChangeListener = (
  dueAtMs: number,
  nowMs: number,
  /** What falls due: an order's expiry, or a callback's first attempt delayed by a fault. */
  what?: "expiry" | "delivery"
) => Effect.Effect<unknown> | undefined

/** The orders of the mock: creating them (idempotently) and moving them to a final state. */
export interface OrdersService {
  /**
   * Creates the order (or finds its idempotent twin) at `nowMs`. A step (domain/Step.ts): on
   * SQLite's direct path it is done at once, without a fiber step; otherwise it is the store's
   * Effect. Refused with duplicateOrder when the orderId was used for another amount or currency.
   */
  readonly create: (appKey: string, request: ValidOrderRequest, nowMs: number) => Step.Step<CreateAnswer, SqlError>
  /**
   * Moves a CREATED order to a final state now, queueing its callback in the same transaction;
   * refused with notFound for an unknown order and paramError for one already final.
   */
  readonly move: (orderSn: string, to: "PAID" | "FAILED" | "EXPIRED") => Effect.Effect<OrderRecord, ApiError | SqlError>
  /** Runs `listener` after every committed create and move, with when the new work falls due. */
  readonly onChange: (listener: ChangeListener) => Effect.Effect<void>
}

export const make: Effect.Effect<OrdersService, never, MockConfig | Store | PublicUrl> = Effect.gen(function* () {
  const config = yield* MockConfig
  const store = yield* Store
  const publicUrl = yield* PublicUrl
  const publish = yield* eventPublisher
  const publishNow = yield* eventPublisherNow
  const runFork = Runtime.runFork(yield* Effect.runtime<never>())
  // Callback faults on purpose (domain/Faults.ts), when the mock was given the service.
  const faults = Option.getOrUndefined(yield* Effect.serviceOption(Faults))
  // Replaced whole on each onChange, never mutated: a create reads it without a fiber step.
  let listeners: ReadonlyArray<ChangeListener> = []

  /** Tells the listeners that something falls due at `dueAtMs`; what they must still do, if anything. */
  const changed = (
    dueAtMs: number,
    nowMs: number,
    what: "expiry" | "delivery" = "expiry"
  ): Effect.Effect<void> | undefined => {
    const pending: Array<Effect.Effect<unknown>> = []
    for (const listener of listeners) {
      const work = listener(dueAtMs, nowMs, what)
      if (work !== undefined) pending.push(work)
    }
    return pending.length === 0 ? undefined : Effect.all(pending, { discard: true })
  }

  const duplicate = (request: ValidOrderRequest, conflict: Conflict) =>
    new ApiError({
      code: "duplicateOrder",
      msg: `orderId ${request.orderId} was already used for ${conflict.existing.amount} ${conflict.existing.currency} (order ${conflict.existing.orderSn})`
    })

  /**
   * The answer to a create whose order is stored. A new order has a time to live, so the
   * dispatcher's expiry schedule hears of it; what that and the `order.created` event still need
   * runs on its own fiber, so the answer waits for neither.
   */
  const answered = ({ order, created }: CreatedOrder, nowMs: number): CreateAnswer => {
    if (created) {
      const wake = changed(order.expiresAtMs, nowMs)
      if (wake !== undefined) runFork(wake)
      publishNow({ type: "order.created", orderSn: order.orderSn, appKey: order.appKey })
    }
    return {
      created,
      result: {
        orderSn: order.orderSn,
        outerOrder: order.outerOrder,
        h5Url: `${publicUrl}/h5/checkout/${encodeURIComponent(order.orderSn)}`
      }
    }
  }

  const create = (appKey: string, request: ValidOrderRequest, nowMs: number): Step.Step<CreateAnswer, SqlError> => {
    const draft: OrderDraft = {
      orderSn: () => orderSnFor(nowMs),
      appKey,
      outerOrder: request.orderId,
      amount: request.amount,
      currency: request.currency,
      nowMs,
      expiresAtMs: nowMs + config.orderTtlMs
    }
    // A storage failure is the step's failure; anything else thrown is a defect (a 500 logged as a crash).
    const failed = (error: unknown) => (isSqlError(error) ? Effect.fail(error) : Effect.die(error))
    const settled = (now: CreatedOrder | Conflict) =>
      now instanceof Conflict ? duplicate(request, now) : answered(now, nowMs)
    let now: ReturnType<typeof store.createOrderNow>
    try {
      now = store.createOrderNow(draft)
    } catch (error) {
      return failed(error)
    }
    // A new order (or a read of one not yet committed) is answered once its group has committed.
    if (now instanceof Promise) return now.then(settled, failed)
    if (now !== undefined) return settled(now)
    return store.createOrder(draft).pipe(
      Effect.catchTag("Conflict", (conflict) => Effect.fail(duplicate(request, conflict))),
      Effect.map((stored) => answered(stored, nowMs))
    )
  }

  const move = (orderSn: string, to: "PAID" | "FAILED" | "EXPIRED") =>
    Effect.gen(function* () {
      const nowMs = yield* Clock.currentTimeMillis
      // A callback fault's delay of the first attempt (domain/Faults.ts), drawn with the move.
      let delayMs = 0
      const order = yield* store
        .moveOrder(orderSn, to, nowMs, (moved) => {
          const eventId = `evt_${randomUUID()}`
          const id = `dlv_${randomUUID()}`
          delayMs = faults === undefined ? 0 : faults.callbackQueued({ deliveryId: id, orderSn })
          return {
            id,
            eventId,
            eventType: EVENT_TYPE[to],
            body: callbackBody(eventId, moved),
            nowMs,
            dueAtMs: nowMs + delayMs
          }
        })
        .pipe(
          Effect.catchTags({
            NotFound: () => Effect.fail(notFound(`no order ${orderSn}`)),
            AlreadyFinal: (e) =>
              Effect.fail(paramError(`order ${orderSn} is already ${e.status}; final states do not move`))
          })
        )
      const wake = changed(nowMs + delayMs, nowMs, "delivery")
      if (wake !== undefined) yield* wake
      yield* publish({ type: "order.moved", orderSn, status: to })
      if (delayMs > 0) {
        yield* publish({
          type: "fault",
          name: "delay",
          route: "callback",
          orderId: order.outerOrder,
          requestId: null,
          delayMs
        })
      }
      return order
    })

  return {
    create,
    move,
    onChange: (listener: ChangeListener) =>
      Effect.sync(() => {
        listeners = [...listeners, listener]
      })
  }
})

/** The {@link OrdersService} in context. */
export class Orders extends Context.Tag("@pc/mock-server/Orders")<Orders, OrdersService>() {
  /**
   * The service, made from what the caller's context holds:
   * main/Server.ts makes the mock's services one after another in one layer.
   *
   * @example
   * ```ts
   * const orders = yield* Effect.provide(Orders.make, context)
   * ```
   */
  static readonly make = make
  static readonly layer = Layer.effect(Orders, make)
}
