/**
 * The wire types of the API with their Effect Schemas: the envelope, the create-order request and
 * result, the callback event, orders. Kept apart from the signing modules so that signing code
 * never pulls the Schema runtime into a bundle.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { resultCodes } from "./ErrorCode.js"
import * as Money from "./Money.js"

/** The create-order path (spec 4.2). */
export const CREATE_ORDER_PATH = "/openapi/v2/order/create"

/** A result code of the envelope. */
export const ResultCode = Schema.Literal(...resultCodes)

// Cc: C0 controls, DEL and C1 controls.
const hasControlCharacter = (s: string): boolean => /\p{Cc}/u.test(s)

/** The merchant's order id: 1 to 64 characters (code points), no control characters. */
export const OrderId = Schema.String.pipe(
  Schema.filter((s) => {
    const length = [...s].length
    if (length < 1 || length > 64) return "orderId must be 1 to 64 characters"
    if (hasControlCharacter(s)) return "orderId must not contain control characters"
    // A lone surrogate has no UTF-8 form: what would be signed is not what the merchant wrote.
    if (/\p{Cs}/u.test(s)) return "orderId must be well-formed Unicode (it has a lone surrogate)"
    return true
  })
)

/** An active ISO 4217 alphabetic currency code, upper case. */
export const Currency = Schema.String.pipe(
  Schema.filter((s) => Money.isCurrencyCode(s) || `currency ${JSON.stringify(s)} is not an active ISO 4217 code`)
)

/** An amount as the request may carry it: a decimal string (`"10.00"`) or a JSON number (`10.5`). */
export const AmountInput = Schema.Union(Schema.String, Schema.Number)

/**
 * The create-order request body (spec 2.1, contract "Create order"). The struct-level check
 * applies the currency's rules to the amount and reports them at the `amount` field.
 *
 * @example
 * ```ts
 * import { Wire } from "@pc/core"
 * import { Schema } from "effect"
 *
 * Schema.decodeUnknownSync(Wire.CreateOrderRequest)({ orderId: "M-1", amount: "10.00", currency: "USD" })
 * ```
 */
export const CreateOrderRequest = Schema.Struct({
  orderId: OrderId,
  amount: AmountInput,
  currency: Currency
}).pipe(
  Schema.filter((request) => {
    const parsed = Money.parseAmount(request.amount, request.currency)
    return parsed.ok || { path: ["amount"], message: parsed.error.message }
  })
)

/** The decoded create-order request. */
export type CreateOrderRequest = typeof CreateOrderRequest.Type

/** The create-order result (spec 2.3). */
export const CreateOrderResult = Schema.Struct({
  orderSn: Schema.String,
  outerOrder: Schema.String,
  h5Url: Schema.String
})

/** The decoded create-order result. */
export type CreateOrderResult = typeof CreateOrderResult.Type

/**
 * The response envelope of every operation (spec 2.2), for a given `data` schema.
 *
 * @example
 * ```ts
 * import { Wire } from "@pc/core"
 * import { Schema } from "effect"
 *
 * const decode = Schema.decodeUnknownSync(Wire.Envelope(Wire.CreateOrderResult))
 * decode({ code: "SUCCESS", msg: null, data: { orderSn: "PC1", outerOrder: "M-1", h5Url: "http://…" } })
 * ```
 */
export const Envelope = <A, I, R>(data: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    code: Schema.String,
    msg: Schema.NullOr(Schema.String),
    data: Schema.NullOr(data)
  })

/** An envelope whose data is not inspected: enough to read `code` and `msg` of any answer. */
export const AnyEnvelope = Envelope(Schema.Unknown)

/** The decoded envelope. */
export interface Envelope<A> {
  readonly code: string
  readonly msg: string | null
  readonly data: A | null
}

/** An order's state: `CREATED`, then one final state (contract "Order states"). */
export const OrderStatus = Schema.Literal("CREATED", "PAID", "FAILED", "EXPIRED")

/** One of {@link OrderStatus}. */
export type OrderStatus = typeof OrderStatus.Type

/** The kinds of callback event, one per final state. */
export const CallbackEventType = Schema.Literal("order.paid", "order.failed", "order.expired")

/** One of {@link CallbackEventType}. */
export type CallbackEventType = typeof CallbackEventType.Type

/**
 * The body of a callback (contract "Callbacks"), sent as compact JSON in this field order.
 *
 * @example
 * ```ts
 * import { Wire } from "@pc/core"
 * import { Schema } from "effect"
 *
 * const event = Schema.decodeUnknownSync(Wire.CallbackEvent)(JSON.parse(rawBody))
 * if (event.eventType === "order.paid") markPaid(event.outerOrder)
 * ```
 */
export const CallbackEvent = Schema.Struct({
  eventId: Schema.String,
  eventType: CallbackEventType,
  orderSn: Schema.String,
  outerOrder: Schema.String,
  amount: Schema.String,
  currency: Schema.String,
  status: Schema.Literal("PAID", "FAILED", "EXPIRED"),
  createdAt: Schema.String,
  updatedAt: Schema.String
})

/** The decoded callback event. */
export type CallbackEvent = typeof CallbackEvent.Type

/** An order as the developer menu shows it (`GET /dev/orders/{orderSn}`). */
export const Order = Schema.Struct({
  orderSn: Schema.String,
  outerOrder: Schema.String,
  amount: Schema.String,
  currency: Schema.String,
  status: OrderStatus,
  createdAt: Schema.String,
  updatedAt: Schema.String
})

/** The decoded order. */
export type Order = typeof Order.Type
