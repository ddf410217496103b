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

/**
 * The create-order path (spec 4.2).
 *
 * @example
 * ```ts
 * import { Canonical } from "@pc/core"
 * import * as Wire from "@pc/core/Wire"
 *
 * const url = new URL(Wire.CREATE_ORDER_PATH, "https://sandbox.example.com")
 * const stringToSign = Canonical.requestStringToSign({ method: "POST", path: url.pathname, appKey, timestamp, body })
 * ```
 */
export const CREATE_ORDER_PATH = "/openapi/v2/order/create"

/**
 * A result code of the envelope. Decoding anything else fails with a `ParseError`.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * Schema.is(Wire.ResultCode)("duplicateOrder") // true
 * Schema.is(Wire.ResultCode)("DUPLICATE_ORDER") // false
 * ```
 */
export const ResultCode = Schema.Literal(...resultCodes)

// Cc: C0 controls, DEL and C1 controls; Cs: surrogates. Made once: a bundler that lowers a regular
// expression literal with \p{...} writes `new RegExp(...)` where the literal stood, a new object per call.
const CONTROL = /\p{Cc}/u
const SURROGATE = /\p{Cs}/u
const hasControlCharacter = (s: string): boolean => CONTROL.test(s)

/** The code points in `s`, counted without splitting it. */
const codePoints = (s: string): number => {
  let count = 0
  for (const _ of s) count++
  return count
}

/**
 * The merchant's order id: 1 to 64 characters (code points), no control characters.
 *
 * Decoding fails with a `ParseError` naming the rule: the length, a control character, or a lone
 * surrogate.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * Schema.decodeUnknownSync(Wire.OrderId)("M-1001") // "M-1001"
 * Schema.decodeUnknownSync(Wire.OrderId)("") // throws ParseError: orderId must be 1 to 64 characters
 * ```
 */
export const OrderId = Schema.String.pipe(
  Schema.filter((s) => {
    // Characters are code points; only a text of over 64 UTF-16 units can have too many of them.
    if (s.length === 0 || (s.length > 64 && codePoints(s) > 64)) return "orderId must be 1 to 64 characters"
    if (hasControlCharacter(s)) return "orderId must not contain control characters"
    // A lone surrogate has no UTF-8 form: what would be signed is not what the merchant wrote.
    if (SURROGATE.test(s)) return "orderId must be well-formed Unicode (it has a lone surrogate)"
    return true
  })
)

/**
 * An active ISO 4217 alphabetic currency code, upper case. Decoding anything else fails with a
 * `ParseError`.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * Schema.decodeUnknownSync(Wire.Currency)("USD") // "USD"
 * Schema.decodeUnknownSync(Wire.Currency)("usd") // throws ParseError: currency "usd" is not an active ISO 4217 code
 * ```
 */
export const Currency = Schema.String.pipe(
  Schema.filter((s) => Money.isCurrencyCode(s) || `currency ${JSON.stringify(s)} is not an active ISO 4217 code`)
)

/**
 * An amount as the request may carry it: a decimal string (`"10.00"`) or a JSON number (`10.5`).
 * Only the type is checked here (anything else fails with a `ParseError`); the currency's rules
 * are applied by {@link CreateOrderRequest}.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * Schema.decodeUnknownSync(Wire.AmountInput)(10.5) // 10.5
 * Schema.is(Wire.AmountInput)(true) // false
 * ```
 */
export const AmountInput = Schema.Union(Schema.String, Schema.Number)

/**
 * The create-order request body (spec 2.1, contract "Create order"). The struct-level check
 * applies the currency's rules to the amount and reports them at the `amount` field.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
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

/**
 * The decoded create-order request.
 *
 * @example
 * ```ts
 * import type * as Wire from "@pc/core/Wire"
 *
 * const request: Wire.CreateOrderRequest = { orderId: "M-1001", amount: "10.00", currency: "USD" }
 * ```
 */
export type CreateOrderRequest = typeof CreateOrderRequest.Type

/**
 * The create-order result (spec 2.3). Decoding fails with a `ParseError` when a field is missing or
 * not a string.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * const result = Schema.decodeUnknownSync(Wire.CreateOrderResult)(envelope.data)
 * result.h5Url // the page to send the payer to
 * ```
 */
export const CreateOrderResult = Schema.Struct({
  orderSn: Schema.String,
  outerOrder: Schema.String,
  h5Url: Schema.String
})

/**
 * The decoded create-order result.
 *
 * @example
 * ```ts
 * import type * as Wire from "@pc/core/Wire"
 *
 * const checkoutUrl = (result: Wire.CreateOrderResult): string => result.h5Url
 * ```
 */
export type CreateOrderResult = typeof CreateOrderResult.Type

/**
 * The response envelope of every operation (spec 2.2), for a given `data` schema.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
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

/**
 * An envelope whose data is not inspected: enough to read `code` and `msg` of any answer. Decoding
 * fails with a `ParseError` when the answer is not an envelope at all.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * const envelope = Schema.decodeUnknownSync(Wire.AnyEnvelope)(await response.json())
 * if (envelope.code !== "SUCCESS") console.error(envelope.code, envelope.msg)
 * ```
 */
export const AnyEnvelope = Envelope(Schema.Unknown)

/**
 * The decoded envelope.
 *
 * @example
 * ```ts
 * import type * as Wire from "@pc/core/Wire"
 *
 * const checkoutUrl = (envelope: Wire.Envelope<Wire.CreateOrderResult>): string | undefined =>
 *   envelope.code === "SUCCESS" ? envelope.data?.h5Url : undefined
 * ```
 */
export interface Envelope<A> {
  readonly code: string
  readonly msg: string | null
  readonly data: A | null
}

/**
 * An order's state: `CREATED`, then one final state (contract "Order states"). Decoding anything
 * else fails with a `ParseError`.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * Schema.decodeUnknownSync(Wire.OrderStatus)("PAID") // "PAID"
 * Schema.is(Wire.OrderStatus)("paid") // false
 * ```
 */
export const OrderStatus = Schema.Literal("CREATED", "PAID", "FAILED", "EXPIRED")

/**
 * One of {@link OrderStatus}.
 *
 * @example
 * ```ts
 * import type * as Wire from "@pc/core/Wire"
 *
 * const isFinal = (status: Wire.OrderStatus): boolean => status !== "CREATED"
 * ```
 */
export type OrderStatus = typeof OrderStatus.Type

/**
 * The kinds of callback event, one per final state. Decoding anything else fails with a
 * `ParseError`.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * Schema.is(Wire.CallbackEventType)("order.paid") // true
 * Schema.is(Wire.CallbackEventType)("order.refunded") // false
 * ```
 */
export const CallbackEventType = Schema.Literal("order.paid", "order.failed", "order.expired")

/**
 * One of {@link CallbackEventType}.
 *
 * @example
 * ```ts
 * import type * as Wire from "@pc/core/Wire"
 *
 * const finalStatus: Record<Wire.CallbackEventType, Wire.OrderStatus> = {
 *   "order.paid": "PAID",
 *   "order.failed": "FAILED",
 *   "order.expired": "EXPIRED"
 * }
 * ```
 */
export type CallbackEventType = typeof CallbackEventType.Type

/**
 * The body of a callback (contract "Callbacks"), sent as compact JSON in this field order.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
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

/**
 * The decoded callback event.
 *
 * @example
 * ```ts
 * import type * as Wire from "@pc/core/Wire"
 *
 * const onEvent = (event: Wire.CallbackEvent): void => {
 *   if (event.eventType === "order.paid") console.log(`order ${event.outerOrder} paid: ${event.amount} ${event.currency}`)
 * }
 * ```
 */
export type CallbackEvent = typeof CallbackEvent.Type

/**
 * An order as the developer menu shows it (`GET /dev/orders/{orderSn}`). Decoding fails with a
 * `ParseError` when a field is missing or the status is unknown.
 *
 * @example
 * ```ts
 * import * as Wire from "@pc/core/Wire"
 * import { Schema } from "effect"
 *
 * const response = await fetch(`${mockUrl}/dev/orders/${orderSn}`)
 * const envelope = Schema.decodeUnknownSync(Wire.Envelope(Wire.Order))(await response.json())
 * envelope.data?.status // "CREATED", "PAID", "FAILED" or "EXPIRED"
 * ```
 */
export const Order = Schema.Struct({
  orderSn: Schema.String,
  outerOrder: Schema.String,
  amount: Schema.String,
  currency: Schema.String,
  status: OrderStatus,
  createdAt: Schema.String,
  updatedAt: Schema.String
})

/**
 * The decoded order.
 *
 * @example
 * ```ts
 * import type * as Wire from "@pc/core/Wire"
 *
 * const isPaid = (order: Wire.Order): boolean => order.status === "PAID"
 * ```
 */
export type Order = typeof Order.Type
