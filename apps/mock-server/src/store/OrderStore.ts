// Orders (table `orders`): idempotent creation by appKey + orderId, the move to a final state
// written together with its callback delivery, and the orders whose time to live has passed.
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Wire from "@pc/core/Wire"
import { Effect, Option, Schema } from "effect"
import { isoTime } from "../IsoTime.js"
import { type DeliveryDraft, insertDelivery } from "./DeliveryStore.js"
import { type BadRow, badRowIsDefect, column } from "./Row.js"
import { SqliteDirect } from "./SqliteConnection.js"
import { AlreadyFinal, Conflict, NotFound } from "./StoreError.js"

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

/** What creating an order needs. */
export interface OrderDraft {
  /** Makes a fresh orderSn; called again in the (astronomically rare) case of a repeat. */
  readonly orderSn: () => string
  readonly appKey: string
  readonly outerOrder: string
  readonly amount: string
  readonly currency: string
  readonly nowMs: number
  readonly expiresAtMs: number
}

/** Orders, as the store offers them. */
export interface OrderStore {
  /**
   * Creates an order, or returns the existing one for the same appKey + orderId (idempotency);
   * `created` says which. Fails with {@link Conflict} when that existing order has another amount
   * or currency.
   */
  readonly createOrder: (
    input: OrderDraft
  ) => Effect.Effect<{ readonly order: OrderRecord; readonly created: boolean }, SqlError | Conflict>

  /** The order with this orderSn, if it exists. */
  readonly getOrder: (orderSn: string) => Effect.Effect<Option.Option<OrderRecord>, SqlError>

  /** The newest `limit` orders, newest first (the developer dashboard's list). */
  readonly recentOrders: (limit: number) => Effect.Effect<ReadonlyArray<OrderRecord>, SqlError>

  /**
   * Moves a CREATED order to a final state and records its callback delivery in the same
   * transaction, so no move is ever without its callback and no callback without its move. Fails
   * with {@link NotFound}, or {@link AlreadyFinal} when the order has left CREATED.
   */
  readonly moveOrder: (
    orderSn: string,
    to: "PAID" | "FAILED" | "EXPIRED",
    nowMs: number,
    draft: (order: OrderRecord) => DeliveryDraft
  ) => Effect.Effect<OrderRecord, SqlError | NotFound | AlreadyFinal>

  /** Orders still CREATED whose time to live has passed (at most 100, earliest first). */
  readonly dueOrders: (nowMs: number) => Effect.Effect<ReadonlyArray<string>, SqlError>

  /** The earliest time an order will expire; `null` when none is still open. */
  readonly nextExpiry: Effect.Effect<number | null, SqlError>
}

/** The insert of a new order on SQLite's direct path: the same statement as the client's, with `?` placeholders. */
const INSERT_ORDER = `INSERT INTO orders
  (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
  VALUES (?, ?, ?, ?, ?, 'CREATED', ?, ?, ?)
  ON CONFLICT DO NOTHING
  RETURNING order_sn`

const NewOrder = OrderRecord.pipe(Schema.typeSchema, Schema.omit("status", "updatedAt"))
const DueOrder = Schema.Struct({ orderSn: OrderRecord.fields.orderSn })
const EarliestAt = Schema.Struct({ at: Schema.NullOr(Schema.Number) })

/**
 * The order store on the `SqlClient` in context.
 *
 * @example
 * ```ts
 * const orders = yield* makeOrderStore
 * const order = yield* orders.getOrder("PC1")
 * ```
 */
export const makeOrderStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const direct = Option.getOrUndefined(yield* Effect.serviceOption(SqliteDirect))

  const findOrder = SqlSchema.findOne({
    Request: Schema.String,
    Result: OrderRecord,
    execute: (orderSn) => sql`SELECT * FROM orders WHERE order_sn = ${orderSn}`
  })
  const findByOuterOrder = SqlSchema.findOne({
    Request: Schema.Struct({ appKey: Schema.String, outerOrder: Schema.String }),
    Result: OrderRecord,
    execute: ({ appKey, outerOrder }) =>
      sql`SELECT * FROM orders WHERE app_key = ${appKey} AND outer_order = ${outerOrder}`
  })
  // One statement per try, so no transaction: the UNIQUE (app_key, outer_order) constraint alone
  // decides which of concurrent creates wins, and the losers read the winner's committed row. The
  // new row is what was written: it is built from the values (typed by NewOrder) rather than read
  // back and decoded, which was a Schema decode and encode on every create.
  const insertIfAbsent = (order: typeof NewOrder.Type): Effect.Effect<OrderRecord | undefined, SqlError> => {
    const created = (rows: ReadonlyArray<unknown>): OrderRecord | undefined =>
      rows.length === 0 ? undefined : { ...order, status: "CREATED", updatedAt: order.createdAt }
    const params = [
      order.orderSn,
      order.appKey,
      order.outerOrder,
      order.amount,
      order.currency,
      order.createdAt,
      order.createdAt,
      order.expiresAtMs
    ]
    const viaClient = Effect.map(
      sql`INSERT INTO orders
      (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
      VALUES (${params[0]}, ${params[1]}, ${params[2]}, ${params[3]}, ${params[4]}, 'CREATED', ${params[5]},
        ${params[6]}, ${params[7]})
      ON CONFLICT DO NOTHING
      RETURNING order_sn`,
      created
    )
    if (direct === undefined) return viaClient
    // SQLite: the same statement, prepared once, in one synchronous call; while a transaction holds
    // the connection it goes the client's way, which waits for the transaction's end.
    return Effect.suspend(() => {
      try {
        const rows = direct.rows(INSERT_ORDER, params)
        return rows === undefined ? viaClient : Effect.succeed(created(rows))
      } catch (cause) {
        return Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
      }
    })
  }
  const moveIfCreated = SqlSchema.findOne({
    Request: Schema.Struct({ orderSn: Schema.String, to: Wire.OrderStatus, now: Schema.String }),
    Result: OrderRecord,
    execute: ({ orderSn, to, now }) => sql`UPDATE orders SET status = ${to}, updated_at = ${now}
      WHERE order_sn = ${orderSn} AND status = 'CREATED' RETURNING *`
  })
  const dueOrders = SqlSchema.findAll({
    Request: Schema.Number,
    Result: DueOrder,
    execute: (nowMs) =>
      sql`SELECT order_sn FROM orders WHERE status = 'CREATED' AND expires_at_ms <= ${nowMs} ORDER BY expires_at_ms LIMIT 100`
  })
  const earliestExpiry = SqlSchema.single({
    Request: Schema.Void,
    Result: EarliestAt,
    execute: () => sql`SELECT MIN(expires_at_ms) AS at FROM orders WHERE status = 'CREATED'`
  })

  const recent = SqlSchema.findAll({
    Request: Schema.Number,
    Result: OrderRecord,
    execute: (limit) => sql`SELECT * FROM orders ORDER BY created_at DESC, order_sn DESC LIMIT ${limit}`
  })
  const getOrder = (orderSn: string) => findOrder(orderSn).pipe(badRowIsDefect)

  const orders: OrderStore = {
    createOrder: (input) => {
      const { orderSn: _, nowMs, ...fields } = input
      const createdAt = isoTime(nowMs)
      const attempt = (
        tries: number
      ): Effect.Effect<{ readonly order: OrderRecord; readonly created: boolean }, SqlError | Conflict | BadRow> =>
        Effect.flatMap(insertIfAbsent({ ...fields, orderSn: input.orderSn(), createdAt }), (inserted) =>
          inserted !== undefined
            ? Effect.succeed({ order: inserted, created: true })
            : Effect.flatMap(findByOuterOrder(input), (existing) => {
                // No order with this orderId: the conflict was a repeated orderSn, so draw another.
                if (Option.isNone(existing) && tries < 5) return attempt(tries + 1)
                const order = Option.getOrThrow(existing)
                if (order.amount !== input.amount || order.currency !== input.currency) {
                  return Effect.fail(new Conflict({ existing: order }))
                }
                return Effect.succeed({ order, created: false })
              })
        )
      return attempt(0).pipe(badRowIsDefect)
    },

    getOrder,

    recentOrders: (limit) => recent(limit).pipe(badRowIsDefect),

    moveOrder: (orderSn, to, nowMs, draft) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const now = isoTime(nowMs)
          const moved = yield* moveIfCreated({ orderSn, to, now })
          if (Option.isNone(moved)) {
            const existing = yield* getOrder(orderSn)
            if (Option.isNone(existing)) return yield* new NotFound({ what: `order ${orderSn}` })
            return yield* new AlreadyFinal({ status: existing.value.status })
          }
          const order = moved.value
          yield* insertDelivery(sql, order, now, draft(order))
          return order
        }).pipe(badRowIsDefect)
      ),

    dueOrders: (nowMs) =>
      dueOrders(nowMs).pipe(
        Effect.map((rows) => rows.map((row) => row.orderSn)),
        badRowIsDefect
      ),

    nextExpiry: earliestExpiry().pipe(
      Effect.map((row) => row.at),
      badRowIsDefect
    )
  }
  return orders
})
