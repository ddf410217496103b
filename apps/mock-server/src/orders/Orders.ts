/**
 * Orders: creation with the contract's validation and idempotency, and the moves to a final state
 * (PAID, FAILED, EXPIRED), each of which records its callback delivery in the same transaction.
 */
import { Money } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { Clock, Context, Effect, Either, Layer, Schema } from "effect"
import { randomInt, randomUUID } from "node:crypto"
import { MockConfig } from "../Config.js"
import { eventPublisher } from "../events/MockEvents.js"
import { paramErrorOf } from "../http/DecodeBody.js"
import { ApiError, notFound, paramError } from "../http/Envelope.js"
import { isoDay } from "../IsoTime.js"
import type { OrderRecord } from "../store/OrderStore.js"
import type { Conflict } from "../store/StoreError.js"
import { Store } from "../store/Store.js"

/** The base of the absolute URLs the server hands out (known once the server is bound). */
export class PublicUrl extends Context.Tag("mock-server/PublicUrl")<PublicUrl, string>() {}

const EVENT_TYPE = { PAID: "order.paid", FAILED: "order.failed", EXPIRED: "order.expired" } as const

// Wire.CreateOrderRequest's fields without its struct-level amount check: the amount is parsed
// once, below, and that one parse gives both the verdict and the canonical amount that is stored.
const decodeFields = Schema.decodeUnknownEither(
  Schema.Struct({ orderId: Wire.OrderId, amount: Wire.AmountInput, currency: Wire.Currency })
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
    Either.mapLeft(decodeFields(body, { errors: "first", onExcessProperty: "ignore" }), (error) => paramErrorOf(error)),
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

const orderSnFor = (nowMs: number): string => {
  const day = isoDay(nowMs)
  // 12 uniformly random digits after the date; the store draws again on the (astronomically rare) repeat.
  const random = String(randomInt(0, 1_000_000_000_000)).padStart(12, "0")
  return `PC${day}${random}`
}

export const make = Effect.gen(function* () {
  const config = yield* MockConfig
  const store = yield* Store
  const publicUrl = yield* PublicUrl
  const publish = yield* eventPublisher
  // Replaced whole on each onChange, never mutated: a create reads it without a fiber step.
  let listeners: ReadonlyArray<(dueAtMs: number) => Effect.Effect<void>> = []

  /** Tells the listeners that something falls due at `dueAtMs` (an expiry, or a callback now). */
  const changed = (dueAtMs: number): Effect.Effect<void> => {
    const all = listeners
    if (all.length === 0) return Effect.void
    if (all.length === 1) return all[0]!(dueAtMs)
    return Effect.all(
      all.map((listener) => listener(dueAtMs)),
      { discard: true }
    )
  }

  const duplicate = (request: ValidOrderRequest) => (conflict: Conflict) =>
    Effect.fail(
      new ApiError({
        code: "duplicateOrder",
        msg: `orderId ${request.orderId} was already used for ${conflict.existing.amount} ${conflict.existing.currency} (order ${conflict.existing.orderSn})`
      })
    )

  /**
   * Creates the order (or finds its idempotent twin) at `nowMs`. A chain of few steps rather than a
   * generator: this runs on every create-order request.
   */
  const create = (appKey: string, request: ValidOrderRequest, nowMs: number) =>
    store
      .createOrder({
        orderSn: () => orderSnFor(nowMs),
        appKey,
        outerOrder: request.orderId,
        amount: request.amount,
        currency: request.currency,
        nowMs,
        expiresAtMs: nowMs + config.orderTtlMs
      })
      .pipe(
        Effect.catchTag("Conflict", duplicate(request)),
        Effect.flatMap(({ order, created }) => {
          const answer = {
            created,
            result: {
              orderSn: order.orderSn,
              outerOrder: order.outerOrder,
              h5Url: `${publicUrl}/h5/checkout/${encodeURIComponent(order.orderSn)}`
            } satisfies Wire.CreateOrderResult
          }
          if (!created) return Effect.succeed(answer)
          // A new order has a time to live: the dispatcher's expiry schedule must hear of it.
          return Effect.as(
            Effect.zipRight(
              changed(order.expiresAtMs),
              publish({ type: "order.created", orderSn: order.orderSn, appKey })
            ),
            answer
          )
        })
      )

  const move = (orderSn: string, to: "PAID" | "FAILED" | "EXPIRED") =>
    Effect.gen(function* () {
      const nowMs = yield* Clock.currentTimeMillis
      const order = yield* store
        .moveOrder(orderSn, to, nowMs, (moved) => {
          const eventId = `evt_${randomUUID()}`
          return {
            id: `dlv_${randomUUID()}`,
            eventId,
            eventType: EVENT_TYPE[to],
            body: callbackBody(eventId, moved),
            nowMs
          }
        })
        .pipe(
          Effect.catchTags({
            NotFound: () => Effect.fail(notFound(`no order ${orderSn}`)),
            AlreadyFinal: (e) =>
              Effect.fail(paramError(`order ${orderSn} is already ${e.status}; final states do not move`))
          })
        )
      yield* changed(nowMs)
      yield* publish({ type: "order.moved", orderSn, status: to })
      return order
    })

  return {
    create,
    move,
    /** Runs `listener` after every committed create and move, with when the new work falls due. */
    onChange: (listener: (dueAtMs: number) => Effect.Effect<void>) =>
      Effect.sync(() => {
        listeners = [...listeners, listener]
      })
  }
})

export class Orders extends Context.Tag("mock-server/Orders")<Orders, Effect.Effect.Success<typeof make>>() {
  static readonly layer = Layer.effect(Orders, make)
}
