// The records the store keeps (orders, deliveries and their attempts, merchants' keys, platform
// keys), in one module that every aggregate's module and the store's errors import, so none of
// them imports another for a type. And how a database row becomes a value: each field names its
// snake_case column and a schema decodes it (`@effect/sql`'s `SqlSchema`). A row the schema refuses
// was not written by this store's migrations and queries, and neither was a missing row where a
// query always returns one (`SELECT MAX(...)`): both are defects, not errors a caller could handle.
import * as Wire from "@pc/core/Wire"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * A field read from the column `name` and decoded by `schema`.
 *
 * @example
 * ```ts
 * const Row = Schema.Struct({ orderSn: column("order_sn", Schema.String) })
 * ```
 */
export const column = <const Name extends string, S extends Schema.Schema.Any>(name: Name, schema: S) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(name))

/** What a query decoded by a schema fails with when a row is not what the store wrote. */
export type BadRow = ParseResult.ParseError | Cause.NoSuchElementException

const isBadRow = (error: unknown): error is BadRow =>
  ParseResult.isParseError(error) || Cause.isNoSuchElementException(error)

/**
 * Turns a row the schema refuses (or a missing row from a query that always returns one) into a
 * defect, so the query's error type stays `SqlError`.
 *
 * @example
 * ```ts
 * const rows = yield* findOrders(appKey).pipe(badRowIsDefect)
 * ```
 */
export const badRowIsDefect = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, BadRow>, R> =>
  Effect.catchIf(self, isBadRow, Effect.die) as Effect.Effect<A, Exclude<E, BadRow>, R>

/** An order as stored: what the developer menu shows, with its merchant and expiry. */
export const OrderRecord = Schema.Struct({
  orderSn: column("order_sn", Schema.String),
  outerOrder: column("outer_order", Schema.String),
  amount: Schema.String,
  currency: Schema.String,
  status: Wire.OrderStatus,
  createdAt: column("created_at", Schema.String),
  updatedAt: column("updated_at", Schema.String),
  appKey: column("app_key", Schema.String),
  expiresAtMs: column("expires_at_ms", Schema.Number)
})
export type OrderRecord = typeof OrderRecord.Type

/** Where a delivery stands: waiting for (another) attempt, answered 2xx, or given up. */
export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed")
export type DeliveryStatus = typeof DeliveryStatus.Type

/** One attempt to send a callback: when, where, the answer (or the error), the signing key. */
export const DeliveryAttempt = Schema.Struct({
  attempt: Schema.Number,
  at: Schema.String,
  url: Schema.NullOr(Schema.String),
  httpStatus: column("http_status", Schema.NullOr(Schema.Number)),
  error: Schema.NullOr(Schema.String),
  keyVersion: column("key_version", Schema.NullOr(Schema.Number)),
  durationMs: column("duration_ms", Schema.Number),
  /** The headers set on the request (Content-Type and the X-R- headers), stored as JSON; null when nothing was sent. */
  requestHeaders: column(
    "request_headers",
    Schema.NullOr(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String })))
  ),
  /** The exact body sent; null when nothing was sent. */
  requestBody: column("request_body", Schema.NullOr(Schema.String))
})
export type DeliveryAttempt = typeof DeliveryAttempt.Type

/** One callback of an order's move to a final state, with its exact signed body. */
export const Delivery = Schema.Struct({
  id: Schema.String,
  orderSn: column("order_sn", Schema.String),
  appKey: column("app_key", Schema.String),
  eventId: column("event_id", Schema.String),
  eventType: column("event_type", Wire.CallbackEventType),
  body: Schema.String,
  status: DeliveryStatus,
  attemptCount: column("attempt_count", Schema.Number),
  nextAttemptAtMs: column("next_attempt_at_ms", Schema.NullOr(Schema.Number)),
  lastError: column("last_error", Schema.NullOr(Schema.String)),
  createdAt: column("created_at", Schema.String),
  createdAtMs: column("created_at_ms", Schema.Number),
  deliveredAt: column("delivered_at", Schema.NullOr(Schema.String))
})
export type Delivery = typeof Delivery.Type

/** A delivery with its attempts, oldest first. */
export interface DeliveryWithAttempts extends Delivery {
  readonly attempts: ReadonlyArray<DeliveryAttempt>
}

/** One key upload of a merchant, as the developer menu lists it. */
export const MerchantKey = Schema.Struct({
  version: Schema.Number,
  status: Schema.Literal("active", "disabled"),
  uploadedAt: column("uploaded_at", Schema.String)
})
export type MerchantKey = typeof MerchantKey.Type

/** A merchant with its key uploads, oldest first. */
export interface Merchant {
  readonly appKey: string
  readonly notifyUrl: string | null
  readonly keys: ReadonlyArray<MerchantKey>
}

/** One platform key pair with its version and status. */
export const PlatformKey = Schema.Struct({
  version: Schema.Number,
  privateKeyPem: column("private_key_pem", Schema.String),
  publicKeyPem: column("public_key_pem", Schema.String),
  status: Schema.Literal("current", "published", "retired"),
  createdAt: column("created_at", Schema.String)
})
export type PlatformKey = typeof PlatformKey.Type
