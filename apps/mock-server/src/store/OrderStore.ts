// Orders (table `orders`): idempotent creation by appKey + orderId, the move to a final state
// written together with its callback delivery, and the orders whose time to live has passed.
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Wire from "@pc/core/Wire"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { isoTime } from "./IsoTime.js"
import { type DeliveryDraft, insertDelivery } from "./DeliveryStore.js"
import { wholeNumber } from "./Dialect.js"
import { SqliteDirect } from "./SqliteConnection.js"
import { rowDecoderSync } from "./RowDecoder.js"
import { AlreadyFinal, Conflict, fromStorePromise, NotFound } from "./StoreError.js"
import { perTurn } from "./TurnBatch.js"
import { type BadRow, badRowIsDefect, OrderRecord } from "./Records.js"

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

/** A created order, or the existing one for the same appKey + orderId (`created` false). */
export interface CreatedOrder {
  readonly order: OrderRecord
  readonly created: boolean
}

/** Orders, as the store offers them. */
export interface OrderStore {
  /**
   * Creates an order, or returns the existing one for the same appKey + orderId (idempotency);
   * `created` says which. Fails with {@link Conflict} when that existing order has another amount
   * or currency.
   */
  readonly createOrder: (input: OrderDraft) => Effect.Effect<CreatedOrder, SqlError | Conflict>

  /**
   * {@link OrderStore.createOrder} without a fiber step. On SQLite's direct path: the order, or the
   * {@link Conflict}, at once when it rests on committed rows alone (a replay while no write is
   * pending), else a Promise of it that settles when the turn's group transaction has committed
   * (rejected with a SqlError when that commit fails): a new order is answered only once stored.
   * On PostgreSQL: a Promise that settles when the statement of the creates that arrived together
   * has returned (committed), rejected with a SqlError when it fails. `undefined` when neither can
   * take it now (a transaction holds SQLite's connection): then `createOrder` does. Throws SqlError
   * when a statement fails; anything else it throws or rejects with (a stored row that does not
   * decode) is a defect.
   */
  readonly createOrderNow: (input: OrderDraft) => CreatedOrder | Conflict | Promise<CreatedOrder | Conflict> | undefined

  /** The order with this orderSn, if it exists. */
  readonly getOrder: (orderSn: string) => Effect.Effect<Option.Option<OrderRecord>, SqlError>

  /** The newest `limit` orders, newest first (the developer dashboard's list). */
  readonly recentOrders: (limit: number) => Effect.Effect<ReadonlyArray<OrderRecord>, SqlError>

  /**
   * Moves a CREATED order to a final state and records its callback delivery in the same
   * transaction, so no move is ever without its callback and no callback without its move. Fails
   * with {@link NotFound}, or {@link AlreadyFinal} when the order has left CREATED. A draft of
   * `undefined` records no delivery: the callback endpoint audit pays its own order, and sends its
   * callbacks itself.
   */
  readonly moveOrder: (
    orderSn: string,
    to: "PAID" | "FAILED" | "EXPIRED",
    nowMs: number,
    draft: (order: OrderRecord) => DeliveryDraft | undefined
  ) => Effect.Effect<OrderRecord, SqlError | NotFound | AlreadyFinal>

  /** Orders still CREATED whose time to live has passed (at most 100, earliest first). */
  readonly dueOrders: (nowMs: number) => Effect.Effect<ReadonlyArray<string>, SqlError>

  /** The earliest time an order will expire; `null` when none is still open. */
  readonly nextExpiry: Effect.Effect<number | null, SqlError>
}

const NewOrder = OrderRecord.pipe(Schema.typeSchema, Schema.omit("status", "updatedAt"))
/** An order read with its columns named as the record's fields (see `byOuterOrder`). */
const StoredOrder = Schema.typeSchema(OrderRecord)
const DueOrder = Schema.Struct({ orderSn: OrderRecord.fields.orderSn })
const EarliestAt = Schema.Struct({ at: Schema.NullOr(Schema.Number) })

/** The insert's eight values, as the direct path compiles its text once (its values come per run). */
const INSERT_PLACEHOLDERS: ReadonlyArray<null> = Array.from({ length: 8 }, () => null)

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
  // Each statement is written once, as the client's template; the direct path runs the same
  // statement's SQLite text, compiled once, with the same parameters.
  // Read by every repeated create (idempotency), so its columns are named as the record's fields
  // and the row is checked by OrderRecord's type side: no key renaming, a third of the decode's cost.
  const byOuterOrder = (appKey: string, outerOrder: string) =>
    sql`SELECT order_sn AS "orderSn", outer_order AS "outerOrder", amount, currency, status,
      created_at AS "createdAt", updated_at AS "updatedAt", app_key AS "appKey", expires_at_ms AS "expiresAtMs"
      FROM orders WHERE app_key = ${appKey} AND outer_order = ${outerOrder}`
  const findByOuterOrder = SqlSchema.findOne({
    Request: Schema.Struct({ appKey: Schema.String, outerOrder: Schema.String }),
    Result: StoredOrder,
    execute: ({ appKey, outerOrder }) => byOuterOrder(appKey, outerOrder)
  })
  // One statement per try, so no transaction: the UNIQUE (app_key, outer_order) constraint alone
  // decides which of concurrent creates wins, and the losers read the winner's committed row. The
  // client learns whether it inserted from the row it returns; the direct path, from the count of
  // rows changed, so there it is the same statement without RETURNING.
  const insertOrder = (p: ReadonlyArray<unknown>, returning = true) => sql`INSERT INTO orders
      (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
      VALUES (${p[0]}, ${p[1]}, ${p[2]}, ${p[3]}, ${p[4]}, 'CREATED', ${p[5]}, ${p[6]}, ${p[7]})
      ON CONFLICT DO NOTHING ${sql.literal(returning ? "RETURNING order_sn" : "")}`
  const directStatements =
    direct === undefined
      ? undefined
      : {
          insert: direct.changes(insertOrder(INSERT_PLACEHOLDERS, false).compile()[0]),
          byOuterOrder: direct.statement(byOuterOrder("", "").compile()[0]),
          beginGroup: direct.beginGroup,
          committed: direct.committed
        }
  const params = (order: typeof NewOrder.Type): ReadonlyArray<unknown> => [
    order.orderSn,
    order.appKey,
    order.outerOrder,
    order.amount,
    order.currency,
    order.createdAt,
    order.createdAt,
    order.expiresAtMs
  ]
  // The new row is what was written: built from the values (typed by NewOrder) rather than read
  // back and decoded, which was a Schema decode and encode on every create.
  // Field by field, as draftAt below: a spread was a visible share of a new order's own CPU.
  const createdRecord = (order: typeof NewOrder.Type): OrderRecord => ({
    orderSn: order.orderSn,
    outerOrder: order.outerOrder,
    amount: order.amount,
    currency: order.currency,
    status: "CREATED",
    createdAt: order.createdAt,
    updatedAt: order.createdAt,
    appKey: order.appKey,
    expiresAtMs: order.expiresAtMs
  })
  /** The order found for a create that inserted nothing: its idempotent twin, or a Conflict. */
  const existingFor = (input: OrderDraft, order: OrderRecord): CreatedOrder | Conflict =>
    order.amount !== input.amount || order.currency !== input.currency
      ? new Conflict({ existing: order })
      : { order, created: false }
  // Field by field: rest and spread copies were a visible share of a create's own CPU.
  const draftAt = (input: OrderDraft): typeof NewOrder.Type => ({
    orderSn: input.orderSn(),
    appKey: input.appKey,
    outerOrder: input.outerOrder,
    amount: input.amount,
    currency: input.currency,
    createdAt: isoTime(input.nowMs),
    expiresAtMs: input.expiresAtMs
  })
  // Per replay: the plain loop in front of the schema (RowDecoder.ts).
  const decodeOrder = rowDecoderSync(StoredOrder)

  // Only the driver's errors are storage failures (SqlError); a row that does not decode, or an
  // orderSn that keeps conflicting, is a defect, as on the Effect path (badRowIsDefect).
  const rowsNow = <A>(run: (params: ReadonlyArray<unknown>) => A | undefined, values: ReadonlyArray<unknown>) => {
    try {
      return run(values)
    } catch (cause) {
      throw new SqlError({ cause, message: "Failed to execute statement" })
    }
  }

  /** Opens the turn's group transaction; its BEGIN failing is a storage failure like a statement's. */
  const groupBegun = (begin: () => boolean): boolean => {
    try {
      return begin()
    } catch (cause) {
      throw new SqlError({ cause, message: "Failed to begin the group transaction" })
    }
  }

  /** {@link OrderStore.createOrderNow} (see there); `tries` counts repeated orderSns. */
  const createNow = (input: OrderDraft): CreatedOrder | Conflict | Promise<CreatedOrder | Conflict> | undefined => {
    if (directStatements === undefined) return undefined
    for (let tries = 0; ; tries++) {
      // Read first: a repeated create (the merchant's retry) is answered without a write. An insert
      // that conflicts still takes and commits a write transaction: twice the statements' time.
      // What the read found may be this turn's uncommitted insert: it too waits for the commit.
      const found = rowsNow(directStatements.byOuterOrder, [input.appKey, input.outerOrder])
      if (found === undefined) return undefined
      if (found.length > 0) return directStatements.committed(existingFor(input, decodeOrder(found[0])))
      if (tries > 5) throw new Error("no order after 6 inserts that conflicted")
      // The insert joins the turn's group transaction, and its answer waits for the group's commit
      // (or, for requests one at a time, commits on its own: see beginGroup).
      if (!groupBegun(directStatements.beginGroup)) return undefined
      const order = draftAt(input)
      const inserted = rowsNow(directStatements.insert, params(order))
      if (inserted === undefined) return undefined
      if (inserted > 0) return directStatements.committed({ order: createdRecord(order), created: true })
      // The insert conflicted: another writer made an order with this orderId since the read (the
      // next read returns it), or the orderSn drawn was taken (the next round draws another).
    }
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

  // Newest first. On SQLite, the order the rows were written in (the table's rowid, read backwards
  // with no index: see migration 0004); the mock's own clock only moves forward, so that is also
  // created_at's order unless the machine's clock is set back. On PostgreSQL, created_at's order
  // through `orders_recent`.
  const recent = SqlSchema.findAll({
    Request: Schema.Number,
    Result: OrderRecord,
    execute: (limit) =>
      sql.onDialectOrElse({
        sqlite: () => sql`SELECT * FROM orders ORDER BY rowid DESC LIMIT ${wholeNumber(sql, limit)}`,
        orElse: () => sql`SELECT * FROM orders ORDER BY created_at DESC, order_sn DESC LIMIT ${wholeNumber(sql, limit)}`
      })
  })
  const getOrder = (orderSn: string) => findOrder(orderSn).pipe(badRowIsDefect)

  // PostgreSQL: the insert and the idempotency read as one statement, and one statement for all
  // the creates that arrive together (TurnBatch.ts: a turn's, or those made while the last such
  // statement ran): where each create made two round trips, such a group makes one (each round
  // trip is a write and a read on the socket on both sides, and a parse and plan on the server).
  // Each create's answer waits for the statement, which commits before it returns. The read sees the statement's snapshot, without the rows the insert
  // makes: it returns the orders that were there before, the insert the ones it made, and neither
  // returns anything for a create whose insert conflicted with an order committed since the
  // snapshot, or made earlier in the same statement (the same orderId twice in a turn), or whose
  // orderSn was taken: its next try reads that order, or draws another orderSn. The insert takes
  // the rows in key order, so that replicas inserting the same orderIds wait for each other
  // instead of deadlocking.
  const createMany = (drafts: ReadonlyArray<typeof NewOrder.Type>) =>
    Effect.map(
      sql.unsafe<Record<string, unknown>>(
        `WITH input AS (
          SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
            WITH ORDINALITY AS t(order_sn, app_key, outer_order, amount, currency, created_at, expires_at_ms, n)
        ), inserted AS (
          INSERT INTO orders
            (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
          SELECT order_sn, app_key, outer_order, amount, currency, 'CREATED', created_at, created_at, expires_at_ms
            FROM input ORDER BY app_key, outer_order
          ON CONFLICT DO NOTHING
          RETURNING order_sn, app_key, outer_order
        )
        SELECT input.n, FALSE AS inserted, o.order_sn AS "orderSn", o.outer_order AS "outerOrder", o.amount,
          o.currency, o.status, o.created_at AS "createdAt", o.updated_at AS "updatedAt", o.app_key AS "appKey",
          o.expires_at_ms AS "expiresAtMs"
          FROM input JOIN orders o ON o.app_key = input.app_key AND o.outer_order = input.outer_order
        UNION ALL
        SELECT input.n, TRUE, input.order_sn, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
          FROM input JOIN inserted ON inserted.order_sn = input.order_sn AND inserted.app_key = input.app_key
            AND inserted.outer_order = input.outer_order`,
        [
          drafts.map((d) => d.orderSn),
          drafts.map((d) => d.appKey),
          drafts.map((d) => d.outerOrder),
          drafts.map((d) => d.amount),
          drafts.map((d) => d.currency),
          drafts.map((d) => d.createdAt),
          drafts.map((d) => d.expiresAtMs)
        ]
      ),
      (rows) => {
        const found: Array<Record<string, unknown> | undefined> = drafts.map(() => undefined)
        for (const row of rows) found[Number(row.n) - 1] = row
        return found
      }
    )
  const insertOrFind = perTurn(yield* Effect.runtime<never>(), createMany)
  // A Promise, not an Effect: a create on PostgreSQL then takes no fiber of its own (domain/Step.ts),
  // only the batch's statement does.
  const createOnPostgres = async (input: OrderDraft): Promise<CreatedOrder | Conflict> => {
    for (let tries = 0; tries <= 5; tries++) {
      const order = draftAt(input)
      const row = await insertOrFind(order)
      if (row === undefined) continue
      if (row.inserted === true) return { order: createdRecord(order), created: true }
      return existingFor(input, decodeOrder(row))
    }
    throw new Error("no order after 6 inserts that conflicted")
  }
  const onPostgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

  const orders: OrderStore = {
    createOrder: (input) => {
      if (onPostgres) {
        return Effect.flatMap(
          fromStorePromise(() => createOnPostgres(input)),
          (created): Effect.Effect<CreatedOrder, Conflict> =>
            created instanceof Conflict ? Effect.fail(created) : Effect.succeed(created)
        )
      }
      // As createNow: read first, insert when there is no such order, read again after a conflict.
      const attempt = (tries: number): Effect.Effect<CreatedOrder, SqlError | Conflict | BadRow> =>
        Effect.flatMap(findByOuterOrder(input), (existing) => {
          if (Option.isSome(existing)) {
            const settled = existingFor(input, existing.value)
            return settled instanceof Conflict ? Effect.fail(settled) : Effect.succeed(settled)
          }
          if (tries > 5) return Effect.dieMessage("no order after 6 inserts that conflicted")
          const order = draftAt(input)
          return Effect.flatMap(insertOrder(params(order)), (inserted) =>
            inserted.length > 0 ? Effect.succeed({ order: createdRecord(order), created: true }) : attempt(tries + 1)
          )
        })
      return attempt(0).pipe(badRowIsDefect)
    },

    createOrderNow: (input) => (onPostgres ? createOnPostgres(input) : createNow(input)),

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
          const delivery = draft(order)
          if (delivery !== undefined) yield* insertDelivery(sql, order, now, delivery)
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
