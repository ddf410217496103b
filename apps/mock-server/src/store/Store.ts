/**
 * Everything the mock keeps, in SQLite (one process per file) or PostgreSQL (several mock replicas
 * sharing one database): merchants and their key uploads, platform keys, orders, callback
 * deliveries and their attempts. Every multi-row change is one transaction; uniqueness (one order
 * per appKey + orderId, ordinal key versions, one current platform key) is enforced by the
 * database, not by luck, so it holds across replicas too. The queries are the same on both
 * dialects; what differs (opening the file, column types, migration locking) is named below.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import type { Environment } from "@pc/core"
import type * as Wire from "@pc/core/Wire"
import { Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs"
import { dirname } from "node:path"
import pg from "pg"
import { isoTime } from "../IsoTime.js"
import { migrations } from "./Migrations.js"

export interface MerchantKey {
  readonly version: number
  readonly status: "active" | "disabled"
  readonly uploadedAt: string
}

export interface Merchant {
  readonly appKey: string
  readonly notifyUrl: string | null
  readonly keys: ReadonlyArray<MerchantKey>
}

export interface PlatformKey {
  readonly version: number
  readonly privateKeyPem: string
  readonly publicKeyPem: string
  readonly status: "current" | "published" | "retired"
  readonly createdAt: string
}

export interface OrderRecord extends Wire.Order {
  readonly appKey: string
  readonly expiresAtMs: number
}

export type DeliveryStatus = "pending" | "delivered" | "failed"

/** The error an attempt row carries from just before it is sent until its outcome is recorded. */
export const ATTEMPT_WITHOUT_OUTCOME =
  "no outcome recorded: the attempt is in flight, or the mock stopped while it was being sent"

export interface DeliveryAttempt {
  readonly attempt: number
  readonly at: string
  readonly url: string | null
  readonly httpStatus: number | null
  readonly error: string | null
  readonly keyVersion: number | null
  readonly durationMs: number
  /** The headers set on the request (Content-Type and the X-R- headers); null when nothing was sent. */
  readonly requestHeaders: Readonly<Record<string, string>> | null
  /** The exact body sent; null when nothing was sent. */
  readonly requestBody: string | null
}

export interface Delivery {
  readonly id: string
  readonly orderSn: string
  readonly appKey: string
  readonly eventId: string
  readonly eventType: Wire.CallbackEventType
  readonly body: string
  readonly status: DeliveryStatus
  readonly attemptCount: number
  readonly nextAttemptAtMs: number | null
  readonly lastError: string | null
  readonly createdAt: string
  readonly createdAtMs: number
  readonly deliveredAt: string | null
}

export interface DeliveryWithAttempts extends Delivery {
  readonly attempts: ReadonlyArray<DeliveryAttempt>
}

/** The database belongs to another environment: refusing to mix sandbox and production data. */
export class EnvironmentMismatch extends Data.TaggedError("EnvironmentMismatch")<{
  readonly expected: Environment.Environment
  readonly found: string
}> {
  override get message() {
    return `this database holds ${this.found} data; start the ${this.expected} mock with another --db`
  }
}

/** Another process holds the database file: two mocks on one file would both send every callback. */
export class DatabaseInUse extends Data.TaggedError("DatabaseInUse")<{ readonly file: string }> {
  override get message() {
    return `another mock is using ${this.file}; stop it or pass another --db`
  }
}

export class NotFound extends Data.TaggedError("NotFound")<{ readonly what: string }> {}
export class AlreadyFinal extends Data.TaggedError("AlreadyFinal")<{ readonly status: Wire.OrderStatus }> {}
export class Conflict extends Data.TaggedError("Conflict")<{ readonly existing: OrderRecord }> {}

const toOrder = (row: Record<string, unknown>): OrderRecord => ({
  orderSn: row.order_sn as string,
  outerOrder: row.outer_order as string,
  amount: row.amount as string,
  currency: row.currency as string,
  status: row.status as Wire.OrderStatus,
  createdAt: row.created_at as string,
  updatedAt: row.updated_at as string,
  appKey: row.app_key as string,
  expiresAtMs: row.expires_at_ms as number
})

const toDelivery = (row: Record<string, unknown>): Delivery => ({
  id: row.id as string,
  orderSn: row.order_sn as string,
  appKey: row.app_key as string,
  eventId: row.event_id as string,
  eventType: row.event_type as Wire.CallbackEventType,
  body: row.body as string,
  status: row.status as DeliveryStatus,
  attemptCount: row.attempt_count as number,
  nextAttemptAtMs: (row.next_attempt_at_ms as number | null) ?? null,
  lastError: (row.last_error as string | null) ?? null,
  createdAt: row.created_at as string,
  createdAtMs: row.created_at_ms as number,
  deliveredAt: (row.delivered_at as string | null) ?? null
})

const toAttempt = (row: Record<string, unknown>): DeliveryAttempt => ({
  attempt: row.attempt as number,
  at: row.at as string,
  url: (row.url as string | null) ?? null,
  httpStatus: (row.http_status as number | null) ?? null,
  error: (row.error as string | null) ?? null,
  keyVersion: (row.key_version as number | null) ?? null,
  durationMs: row.duration_ms as number,
  requestHeaders: parseHeaders(row.request_headers),
  requestBody: (row.request_body as string | null) ?? null
})

/** The stored JSON of an attempt's headers; anything but an object of strings reads as none. */
const parseHeaders = (text: unknown): Readonly<Record<string, string>> | null => {
  if (typeof text !== "string") return null
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null
    const entries = Object.entries(parsed)
    return entries.every(([, value]) => typeof value === "string") ? (parsed as Record<string, string>) : null
  } catch {
    return null
  }
}

const toPlatformKey = (row: Record<string, unknown>): PlatformKey => ({
  version: row.version as number,
  privateKeyPem: row.private_key_pem as string,
  publicKeyPem: row.public_key_pem as string,
  status: row.status as PlatformKey["status"],
  createdAt: row.created_at as string
})

const headersText = (headers: Readonly<Record<string, string>> | null): string | null =>
  headers === null ? null : JSON.stringify(headers)

/** A callback to record together with an order's move, in the same transaction. */
export interface DeliveryDraft {
  readonly id: string
  readonly eventId: string
  readonly eventType: Wire.CallbackEventType
  readonly body: string
  readonly nowMs: number
}

/**
 * `shared`: other processes write the same database (PostgreSQL replicas), so nothing read from it
 * may be cached in this process.
 */
export const make = (options: { readonly shared: boolean }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const merchantKeys = (appKey: string) =>
      sql`SELECT version, status, uploaded_at FROM merchant_keys WHERE app_key = ${appKey} ORDER BY version`.pipe(
        Effect.map((rows) =>
          rows.map(
            (row): MerchantKey => ({
              version: row.version as number,
              status: row.status as MerchantKey["status"],
              uploadedAt: row.uploaded_at as string
            })
          )
        )
      )

    const getMerchant = (appKey: string): Effect.Effect<Option.Option<Merchant>, SqlError> =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT app_key, notify_url FROM merchants WHERE app_key = ${appKey}`
        const row = rows[0]
        if (row === undefined) return Option.none()
        const keys = yield* merchantKeys(appKey)
        return Option.some({ appKey, notifyUrl: (row.notify_url as string | null) ?? null, keys })
      })

    const insertKey = (appKey: string, publicKeyPem: string, nowMs: number) =>
      Effect.gen(function* () {
        // The n-th upload is version n (spec 5.2): the next ordinal, inside the same transaction.
        const [row] =
          yield* sql`SELECT COALESCE(MAX(version), 0) + 1 AS next FROM merchant_keys WHERE app_key = ${appKey}`
        const version = row!.next as number
        yield* sql`INSERT INTO merchant_keys (app_key, version, public_key_pem, status, uploaded_at)
        VALUES (${appKey}, ${version}, ${publicKeyPem}, 'active', ${isoTime(nowMs)})`
        return version
      })

    const getOrder = (orderSn: string): Effect.Effect<Option.Option<OrderRecord>, SqlError> =>
      sql`SELECT * FROM orders WHERE order_sn = ${orderSn}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toOrder))
      )

    const attemptsOf = (deliveryId: string) =>
      sql`SELECT * FROM delivery_attempts WHERE delivery_id = ${deliveryId} ORDER BY attempt`.pipe(
        Effect.map((rows) => rows.map(toAttempt))
      )

    const getDelivery = (id: string): Effect.Effect<Option.Option<DeliveryWithAttempts>, SqlError> =>
      Effect.gen(function* () {
        const [row] = yield* sql`SELECT * FROM deliveries WHERE id = ${id}`
        if (row === undefined) return Option.none()
        return Option.some({ ...toDelivery(row), attempts: yield* attemptsOf(id) })
      })

    // What authentication reads on every request (does the merchant exist, which key versions, which
    // are disabled), cached per appKey. On SQLite this store is the only writer, and every write
    // below that touches a merchant forgets its entry, so the cache is never stale. On a shared
    // database another replica may disable a key at any time: there nothing is cached.
    type AuthKeys = ReadonlyMap<number, { readonly publicKeyPem: string; readonly status: MerchantKey["status"] }>
    const authCache = new Map<string, AuthKeys>()
    let writes = 0

    const authOf = (appKey: string): Effect.Effect<AuthKeys | null, SqlError> => {
      const cached = authCache.get(appKey)
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.gen(function* () {
        // A write that lands while this load runs bumps the generation: then the load is not cached.
        const generation = writes
        const merchant = yield* sql`SELECT 1 FROM merchants WHERE app_key = ${appKey}`
        const keys: AuthKeys | null =
          merchant.length === 0
            ? null
            : new Map(
                (yield* sql`SELECT version, public_key_pem, status FROM merchant_keys WHERE app_key = ${appKey}`).map(
                  (row) =>
                    [
                      row.version as number,
                      { publicKeyPem: row.public_key_pem as string, status: row.status as MerchantKey["status"] }
                    ] as const
                )
              )
        // Only merchants are cached: a miss costs one query, and caching misses would let requests
        // with made-up appKeys grow this map without bound.
        if (keys !== null && generation === writes && !options.shared) authCache.set(appKey, keys)
        return keys
      })
    }
    const forget = (appKey: string) =>
      Effect.ensuring(
        Effect.sync(() => {
          writes++
          authCache.delete(appKey)
        })
      )

    return {
      /** Whether other processes share this database (PostgreSQL replicas): then nothing may be cached. */
      shared: options.shared,

      /** Binds a fresh database to the environment, and refuses one that holds another's data. */
      claimEnvironment: (environment: Environment.Environment) =>
        // Insert-if-absent, then read: replicas starting together on a fresh database all agree.
        Effect.gen(function* () {
          yield* sql`INSERT INTO meta (key, value) VALUES ('environment', ${environment}) ON CONFLICT DO NOTHING`
          const [row] = yield* sql`SELECT value FROM meta WHERE key = 'environment'`
          if (row?.value !== environment) {
            return yield* new EnvironmentMismatch({ expected: environment, found: String(row?.value) })
          }
        }),

      /** Creates a merchant with its first key (version 1). */
      createMerchant: (input: {
        readonly appKey: string
        readonly publicKeyPem: string
        readonly notifyUrl: string | null
        readonly nowMs: number
      }) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO merchants (app_key, notify_url, created_at)
            VALUES (${input.appKey}, ${input.notifyUrl}, ${isoTime(input.nowMs)})`
              return yield* insertKey(input.appKey, input.publicKeyPem, input.nowMs)
            })
          )
          .pipe(forget(input.appKey)),

      /** Makes sure a fixed merchant (the test merchant) exists with this key as version 1. */
      ensureMerchant: (input: { readonly appKey: string; readonly publicKeyPem: string; readonly nowMs: number }) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              // Insert-if-absent: of replicas starting together, one inserts and the others (waiting
              // on its row until it commits) do nothing.
              const inserted = yield* sql`INSERT INTO merchants (app_key, notify_url, created_at)
              VALUES (${input.appKey}, NULL, ${isoTime(input.nowMs)}) ON CONFLICT DO NOTHING RETURNING app_key`
              if (inserted.length === 0) return
              yield* insertKey(input.appKey, input.publicKeyPem, input.nowMs)
            })
          )
          .pipe(forget(input.appKey)),

      getMerchant,

      /** Adds a key upload; resolves its version (the ordinal of the upload). */
      addMerchantKey: (appKey: string, publicKeyPem: string, nowMs: number) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const merchant = yield* sql`SELECT 1 FROM merchants WHERE app_key = ${appKey}`
              if (merchant.length === 0) return yield* new NotFound({ what: `merchant ${appKey}` })
              return yield* insertKey(appKey, publicKeyPem, nowMs)
            })
          )
          .pipe(forget(appKey)),

      disableMerchantKey: (appKey: string, version: number) =>
        Effect.gen(function* () {
          const rows = yield* sql`UPDATE merchant_keys SET status = 'disabled'
          WHERE app_key = ${appKey} AND version = ${version} RETURNING version`
          if (rows.length === 0) return yield* new NotFound({ what: `key version ${version} of merchant ${appKey}` })
        }).pipe(forget(appKey)),

      /** The public key PEM and status of one merchant key version (cached; see `authOf`). */
      merchantKey: (appKey: string, version: number) =>
        Effect.map(authOf(appKey), (keys) => Option.fromNullable(keys?.get(version))),

      merchantExists: (appKey: string) => Effect.map(authOf(appKey), (keys) => keys !== null),

      /** Sets the notify URL and makes the merchant's waiting deliveries due now, in one transaction. */
      setNotifyUrl: (appKey: string, notifyUrl: string, nowMs: number) =>
        sql.withTransaction(
          Effect.gen(function* () {
            const rows =
              yield* sql`UPDATE merchants SET notify_url = ${notifyUrl} WHERE app_key = ${appKey} RETURNING app_key`
            if (rows.length === 0) return yield* new NotFound({ what: `merchant ${appKey}` })
            yield* sql`UPDATE deliveries SET next_attempt_at_ms = ${nowMs}
            WHERE app_key = ${appKey} AND status = 'pending' AND next_attempt_at_ms > ${nowMs}`
          })
        ),

      notifyUrlOf: (appKey: string) =>
        sql`SELECT notify_url FROM merchants WHERE app_key = ${appKey}`.pipe(
          Effect.map((rows) => (rows[0]?.notify_url as string | null | undefined) ?? null)
        ),

      platformKeys: sql`SELECT * FROM platform_keys ORDER BY version`.pipe(
        Effect.map((rows) => rows.map(toPlatformKey))
      ),

      /**
       * The current platform key, making `initial` version 1 when there is none yet. Replicas starting
       * together on a fresh database each offer a key; exactly one becomes version 1 and all of them
       * sign with it.
       */
      currentPlatformKey: (initial: {
        readonly privateKeyPem: string
        readonly publicKeyPem: string
        readonly nowMs: number
      }) =>
        Effect.gen(function* () {
          yield* sql`INSERT INTO platform_keys (version, private_key_pem, public_key_pem, status, created_at)
          VALUES (1, ${initial.privateKeyPem}, ${initial.publicKeyPem}, 'current', ${isoTime(initial.nowMs)})
          ON CONFLICT DO NOTHING`
          const [row] = yield* sql`SELECT * FROM platform_keys WHERE status = 'current'`
          return toPlatformKey(row!)
        }),

      /** Publishes a new platform key that signs from now on; the previous current one stays published. */
      addPlatformKey: (input: {
        readonly privateKeyPem: string
        readonly publicKeyPem: string
        readonly nowMs: number
      }) =>
        sql.withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql`SELECT COALESCE(MAX(version), 0) + 1 AS next FROM platform_keys`
            const version = row!.next as number
            yield* sql`UPDATE platform_keys SET status = 'published' WHERE status = 'current'`
            yield* sql`INSERT INTO platform_keys (version, private_key_pem, public_key_pem, status, created_at)
            VALUES (${version}, ${input.privateKeyPem}, ${input.publicKeyPem}, 'current', ${isoTime(input.nowMs)})`
            return toPlatformKey({
              version,
              private_key_pem: input.privateKeyPem,
              public_key_pem: input.publicKeyPem,
              status: "current",
              created_at: isoTime(input.nowMs)
            })
          })
        ),

      /**
       * Creates an order, or returns the existing one for the same appKey + orderId (idempotency).
       * Fails with {@link Conflict} when that existing order has another amount or currency.
       */
      createOrder: (input: {
        /** Makes a fresh orderSn; called again in the (astronomically rare) case of a repeat. */
        readonly orderSn: () => string
        readonly appKey: string
        readonly outerOrder: string
        readonly amount: string
        readonly currency: string
        readonly nowMs: number
        readonly expiresAtMs: number
      }) =>
        // One statement per try, so no transaction: the UNIQUE (app_key, outer_order) constraint alone
        // decides which of concurrent creates wins, and the losers read the winner's committed row.
        Effect.gen(function* () {
          const now = isoTime(input.nowMs)
          for (let attempt = 0; ; attempt++) {
            const inserted = yield* sql`INSERT INTO orders
            (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
            VALUES (${input.orderSn()}, ${input.appKey}, ${input.outerOrder}, ${input.amount}, ${input.currency},
              'CREATED', ${now}, ${now}, ${input.expiresAtMs})
            ON CONFLICT DO NOTHING
            RETURNING *`
            if (inserted[0] !== undefined) return { order: toOrder(inserted[0]), created: true }
            const [row] =
              yield* sql`SELECT * FROM orders WHERE app_key = ${input.appKey} AND outer_order = ${input.outerOrder}`
            // No order with this orderId: the conflict was a repeated orderSn, so draw another.
            if (row === undefined && attempt < 5) continue
            const existing = toOrder(row!)
            if (existing.amount !== input.amount || existing.currency !== input.currency) {
              return yield* new Conflict({ existing })
            }
            return { order: existing, created: false }
          }
        }),

      getOrder,

      /** The newest `limit` orders, newest first. */
      recentOrders: (limit: number): Effect.Effect<ReadonlyArray<OrderRecord>, SqlError> =>
        sql`SELECT * FROM orders ORDER BY created_at DESC, order_sn DESC LIMIT ${limit}`.pipe(
          Effect.map((rows) => rows.map(toOrder))
        ),

      /** The newest `limit` merchants, newest first, with their key versions (two queries, whatever `limit`). */
      recentMerchants: (limit: number): Effect.Effect<ReadonlyArray<Merchant>, SqlError> =>
        Effect.gen(function* () {
          const rows =
            yield* sql`SELECT app_key, notify_url FROM merchants ORDER BY created_at DESC, app_key LIMIT ${limit}`
          if (rows.length === 0) return []
          const appKeys = rows.map((row) => row.app_key as string)
          const keyRows = yield* sql`SELECT app_key, version, status, uploaded_at FROM merchant_keys
            WHERE app_key IN ${sql.in(appKeys)} ORDER BY app_key, version`
          const keys = new Map<string, Array<MerchantKey>>()
          for (const row of keyRows) {
            const list = keys.get(row.app_key as string) ?? []
            list.push({
              version: row.version as number,
              status: row.status as MerchantKey["status"],
              uploadedAt: row.uploaded_at as string
            })
            keys.set(row.app_key as string, list)
          }
          return rows.map((row) => ({
            appKey: row.app_key as string,
            notifyUrl: (row.notify_url as string | null) ?? null,
            keys: keys.get(row.app_key as string) ?? []
          }))
        }),

      /**
       * Moves a CREATED order to a final state and records its callback delivery in the same
       * transaction, so no move is ever without its callback and no callback without its move.
       */
      moveOrder: (
        orderSn: string,
        to: "PAID" | "FAILED" | "EXPIRED",
        nowMs: number,
        draft: (order: OrderRecord) => DeliveryDraft
      ) =>
        sql.withTransaction(
          Effect.gen(function* () {
            const now = isoTime(nowMs)
            const [row] = yield* sql`UPDATE orders SET status = ${to}, updated_at = ${now}
            WHERE order_sn = ${orderSn} AND status = 'CREATED' RETURNING *`
            if (row === undefined) {
              const existing = yield* getOrder(orderSn)
              if (Option.isNone(existing)) return yield* new NotFound({ what: `order ${orderSn}` })
              return yield* new AlreadyFinal({ status: existing.value.status })
            }
            const order = toOrder(row)
            const delivery = draft(order)
            yield* sql`INSERT INTO deliveries
            (id, order_sn, app_key, event_id, event_type, body, status, attempt_count, next_attempt_at_ms, created_at, created_at_ms)
            VALUES (${delivery.id}, ${orderSn}, ${order.appKey}, ${delivery.eventId}, ${delivery.eventType}, ${delivery.body},
              'pending', 0, ${delivery.nowMs}, ${now}, ${delivery.nowMs})`
            return order
          })
        ),

      /** Orders still CREATED whose time to live has passed. */
      dueOrders: (nowMs: number) =>
        sql`SELECT order_sn FROM orders WHERE status = 'CREATED' AND expires_at_ms <= ${nowMs} ORDER BY expires_at_ms LIMIT 100`.pipe(
          Effect.map((rows) => rows.map((row) => row.order_sn as string))
        ),

      /** The earliest time an order will expire, if any is still open. */
      nextExpiry: sql`SELECT MIN(expires_at_ms) AS at FROM orders WHERE status = 'CREATED'`.pipe(
        Effect.map((rows) => (rows[0]?.at as number | null | undefined) ?? null)
      ),

      /** Pending deliveries due at `nowMs`. */
      dueDeliveries: (nowMs: number) =>
        sql`SELECT * FROM deliveries WHERE status = 'pending' AND next_attempt_at_ms <= ${nowMs}
        ORDER BY next_attempt_at_ms LIMIT 50`.pipe(Effect.map((rows) => rows.map(toDelivery))),

      nextDeliveryAt: sql`SELECT MIN(next_attempt_at_ms) AS at FROM deliveries WHERE status = 'pending'`.pipe(
        Effect.map((rows) => (rows[0]?.at as number | null | undefined) ?? null)
      ),

      /**
       * Leases a delivery that is pending and due at `nowMs` for an attempt until `untilMs` (see the
       * dispatcher). A compare-and-set: resolves `false`, and the caller must not attempt, when the row
       * is no longer due (another lease, or a state change since it was read).
       */
      lease: (id: string, nowMs: number, untilMs: number) =>
        sql`UPDATE deliveries SET next_attempt_at_ms = ${untilMs}
        WHERE id = ${id} AND status = 'pending' AND next_attempt_at_ms <= ${nowMs} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0)
        ),

      /**
       * Claims up to `limit` pending deliveries due at `nowMs` by leasing them until `untilMs`, in one
       * statement; resolves the claimed rows. `exclude` are the rows this process has in flight,
       * `busy` the merchants that already hold all the slots they may (none of theirs is claimed).
       *
       * Due rows are taken in turns between merchants (each merchant's oldest, then each one's
       * second, ...), at most `perMerchant` of one merchant: a merchant with a backlog of hundreds (a
       * dead endpoint) never fills the batch and hides another merchant's callback behind it.
       *
       * On PostgreSQL the candidate rows are locked `FOR UPDATE SKIP LOCKED`: replicas claiming at the
       * same moment take disjoint sets instead of queueing on each other's rows, and a row leased by
       * one is not due for the others until its lease ends (a replica that dies holding it loses
       * nothing). SQLite has one writer and no row locks: the same statement without the clause.
       */
      claimDue: (
        nowMs: number,
        untilMs: number,
        options: {
          readonly limit: number
          readonly perMerchant: number
          readonly exclude: ReadonlyArray<string>
          readonly busy: ReadonlyArray<string>
        }
      ) => {
        const notExcluded = options.exclude.length === 0 ? sql`1 = 1` : sql`id NOT IN ${sql.in(options.exclude)}`
        const notBusy = options.busy.length === 0 ? sql`1 = 1` : sql`app_key NOT IN ${sql.in(options.busy)}`
        // FOR UPDATE cannot share a query level with a window function: the rows are locked in the
        // first step, and ranked in the second.
        const locking = sql.onDialectOrElse({
          pg: () => sql.literal("FOR UPDATE SKIP LOCKED"),
          orElse: () => sql.literal("")
        })
        return sql`WITH due AS (
            SELECT id, app_key, next_attempt_at_ms FROM deliveries
            WHERE status = 'pending' AND next_attempt_at_ms <= ${nowMs} AND ${notExcluded} AND ${notBusy}
            ${locking}
          ), turns AS (
            SELECT id, next_attempt_at_ms,
              ROW_NUMBER() OVER (PARTITION BY app_key ORDER BY next_attempt_at_ms, id) AS turn
            FROM due
          )
          UPDATE deliveries SET next_attempt_at_ms = ${untilMs}
          WHERE id IN (SELECT id FROM turns WHERE turn <= ${options.perMerchant}
            ORDER BY turn, next_attempt_at_ms, id LIMIT ${options.limit})
          RETURNING *`.pipe(Effect.map((rows) => rows.map(toDelivery)))
      },

      /**
       * Gives back claimed rows that this process will not attempt after all (a merchant's slots
       * filled up): due again at `nowMs`, unless something changed them since the claim.
       */
      release: (ids: ReadonlyArray<string>, untilMs: number, nowMs: number) =>
        ids.length === 0
          ? Effect.void
          : sql`UPDATE deliveries SET next_attempt_at_ms = ${nowMs}
              WHERE id IN ${sql.in(ids)} AND status = 'pending' AND next_attempt_at_ms = ${untilMs}`.pipe(
              Effect.asVoid
            ),

      /**
       * Records that an attempt is about to be sent, before it is (CONTRACT.md): if the process dies
       * while it is on the wire, the attempt still shows, with {@link ATTEMPT_WITHOUT_OUTCOME} as its
       * error. Resolves with the attempt's number, which {@link recordAttempt} then completes.
       */
      beginAttempt: (
        deliveryId: string,
        attempt: Pick<DeliveryAttempt, "at" | "url" | "keyVersion" | "requestHeaders" | "requestBody">
      ): Effect.Effect<number, SqlError> =>
        sql.withTransaction(
          Effect.gen(function* () {
            // After attempts cut short by a crash, the next number follows the rows, not the count.
            const [row] =
              yield* sql`SELECT COALESCE(MAX(attempt), 0) + 1 AS next FROM delivery_attempts WHERE delivery_id = ${deliveryId}`
            const number = Number(row!.next)
            yield* sql`INSERT INTO delivery_attempts
                (delivery_id, attempt, at, url, http_status, error, key_version, duration_ms, request_headers, request_body)
              VALUES (${deliveryId}, ${number}, ${attempt.at}, ${attempt.url}, NULL, ${ATTEMPT_WITHOUT_OUTCOME},
                ${attempt.keyVersion}, 0, ${headersText(attempt.requestHeaders)}, ${attempt.requestBody})`
            yield* sql`UPDATE deliveries SET attempt_count = ${number} WHERE id = ${deliveryId}`
            return number
          })
        ),

      /**
       * Records one attempt made under the lease `leasedUntilMs`, and the delivery's next state,
       * atomically; `begun` is the number {@link beginAttempt} gave it (the row is completed), else
       * a new row is added. When the row no longer carries that lease, a resend came in while the
       * attempt ran: the attempt is recorded, but the delivery stays pending and due at the resend's
       * time, so the resend is not lost.
       */
      recordAttempt: (
        delivery: Delivery,
        leasedUntilMs: number,
        attempt: Omit<DeliveryAttempt, "attempt" | "requestHeaders" | "requestBody">,
        next:
          | { readonly status: "delivered" }
          | { readonly status: "pending"; readonly nextAttemptAtMs: number }
          | { readonly status: "failed" },
        begun?: number
      ) =>
        sql.withTransaction(
          Effect.gen(function* () {
            const [row] =
              yield* sql`SELECT attempt_count, status, next_attempt_at_ms FROM deliveries WHERE id = ${delivery.id}`
            if (row === undefined) return
            const number = begun ?? Number(row.attempt_count) + 1
            if (begun === undefined) {
              yield* sql`INSERT INTO delivery_attempts (delivery_id, attempt, at, url, http_status, error, key_version, duration_ms)
                VALUES (${delivery.id}, ${number}, ${attempt.at}, ${attempt.url}, ${attempt.httpStatus}, ${attempt.error},
                  ${attempt.keyVersion}, ${attempt.durationMs})`
            } else {
              yield* sql`UPDATE delivery_attempts SET at = ${attempt.at}, url = ${attempt.url}, http_status = ${attempt.httpStatus},
                  error = ${attempt.error}, key_version = ${attempt.keyVersion}, duration_ms = ${attempt.durationMs}
                WHERE delivery_id = ${delivery.id} AND attempt = ${number}`
            }
            const deliveredAt = next.status === "delivered" ? attempt.at : null
            const resent = row.status !== "pending" || row.next_attempt_at_ms !== leasedUntilMs
            if (resent) {
              yield* sql`UPDATE deliveries SET attempt_count = ${number}, last_error = ${attempt.error},
              delivered_at = COALESCE(${deliveredAt}, delivered_at)
              WHERE id = ${delivery.id}`
              return
            }
            const nextAt = next.status === "pending" ? next.nextAttemptAtMs : null
            yield* sql`UPDATE deliveries SET status = ${next.status}, attempt_count = ${number},
            next_attempt_at_ms = ${nextAt}, last_error = ${attempt.error}, delivered_at = ${deliveredAt}
            WHERE id = ${delivery.id}`
          })
        ),

      /** One order's deliveries, oldest first; or, without `orderSn`, the newest `limit` deliveries. */
      deliveriesOf: (orderSn: string | undefined, limit = 200) =>
        Effect.gen(function* () {
          const rows =
            orderSn === undefined
              ? yield* sql`SELECT * FROM deliveries ORDER BY created_at_ms DESC, id LIMIT ${limit}`
              : yield* sql`SELECT * FROM deliveries WHERE order_sn = ${orderSn} ORDER BY created_at_ms, id`
          return yield* Effect.forEach(rows, (row) =>
            Effect.map(attemptsOf(row.id as string), (attempts) => ({ ...toDelivery(row), attempts }))
          )
        }),

      getDelivery,

      /** Queues a delivery again, now, whatever its state (the developer menu's resend). */
      resend: (id: string, nowMs: number) =>
        Effect.gen(function* () {
          const rows = yield* sql`UPDATE deliveries SET status = 'pending', next_attempt_at_ms = ${nowMs}
          WHERE id = ${id} RETURNING id`
          if (rows.length === 0) return yield* new NotFound({ what: `delivery ${id}` })
          return (yield* getDelivery(id)).pipe(Option.getOrThrow)
        })
    }
  })

/** A database that is a file on disk (not `:memory:`, not SQLite's anonymous temporary database). */
const isFile = (db: string): boolean => db !== ":memory:" && db !== ""

/** SQLite's answer when another connection holds the lock (the cause of a SqlError). */
const isBusy = (error: SqlError): boolean => {
  const cause: unknown = error.cause
  return (
    typeof cause === "object" &&
    cause !== null &&
    "code" in cause &&
    typeof cause.code === "string" &&
    /^SQLITE_(BUSY|LOCKED)/.test(cause.code)
  )
}

/**
 * Opens the database for this process alone. On a file, the lock is taken before anything else:
 * two mocks on one file would both send every callback and each keep a stale auth cache, so the
 * second one is refused at once ({@link DatabaseInUse}) instead of after SQLite's usual busy wait.
 */
const openDatabase = (db: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (isFile(db)) {
      yield* Effect.gen(function* () {
        // Short while claiming the file: a lock held by another process is not released by waiting.
        yield* sql`PRAGMA busy_timeout = 250`
        // EXCLUSIVE before the first WAL access: the connection keeps its file lock until it closes
        // (and the WAL index lives in its own memory), so no other process can read or write the file.
        yield* sql`PRAGMA locking_mode = EXCLUSIVE`
        yield* sql`PRAGMA journal_mode = WAL`
        // A write transaction takes the exclusive lock now rather than at the first real write.
        yield* sql`BEGIN IMMEDIATE`
        yield* sql`COMMIT`
        yield* sql`PRAGMA busy_timeout = 5000`
      }).pipe(
        Effect.catchTag(
          "SqlError",
          (error): Effect.Effect<never, SqlError | DatabaseInUse> =>
            isBusy(error) ? Effect.fail(new DatabaseInUse({ file: db })) : Effect.fail(error)
        )
      )
    }
    // WAL with synchronous=NORMAL: a commit is not fsynced, yet a killed process loses nothing
    // (only a power cut can drop the last commits), and creates stay fast.
    yield* sql`PRAGMA synchronous = NORMAL`
    yield* sql`PRAGMA foreign_keys = ON`
  })

/**
 * Makes the database file, readable and writable by its owner only (0600: it holds the platform
 * private keys), and its folder, unless they exist. SQLite gives its WAL file the same mode.
 */
const createFile = (db: string) =>
  Effect.sync(() => {
    if (!isFile(db) || existsSync(db)) return
    mkdirSync(dirname(db), { recursive: true })
    closeSync(openSync(db, "a", 0o600))
  })

const migrate = Migrator.make({})({ loader: Migrator.fromRecord(migrations) })

/** An arbitrary constant naming the mock's migration lock among PostgreSQL advisory locks. */
const MIGRATION_LOCK = 4_010_013

/**
 * Migrates a shared PostgreSQL database while holding an advisory lock for the transaction: of
 * replicas starting together, one migrates and the others wait, then find nothing left to do.
 */
const migrateShared = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
      // The migrator probes for its table with a query that fails when it is missing, which would
      // abort this transaction: under the lock, make the table first (the migrator's own definition).
      yield* sql`CREATE TABLE IF NOT EXISTS effect_sql_migrations (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
      yield* migrate
    })
  )
})

/** Whether `--db` names a PostgreSQL database (`postgres://` or `postgresql://`) rather than a SQLite file. */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

// node-postgres hands BIGINT (int8) columns over as strings, since they may exceed 2^53; the
// mock's are epoch milliseconds and counts, well within it: read them as numbers, as on SQLite.
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
}

export class Store extends Context.Tag("mock-server/Store")<Store, Effect.Effect.Success<ReturnType<typeof make>>>() {
  /**
   * Opens the SQLite database `db` (a file: locked for this process, see {@link DatabaseInUse}),
   * runs the migrations, then offers the store. Needs a `SqlClient` on `db`.
   */
  static readonly layer = (db: string) =>
    Layer.effect(
      Store,
      Effect.gen(function* () {
        yield* openDatabase(db)
        yield* migrate
        return yield* make({ shared: false })
      })
    )

  /** The store on a shared PostgreSQL database (`postgres://` URL): migrated under a lock, no caches. */
  static readonly postgres = (url: string) =>
    Layer.effect(
      Store,
      Effect.gen(function* () {
        yield* migrateShared
        return yield* make({ shared: true })
      })
    ).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), types: pgTypes })))

  /** The store `--db` names: PostgreSQL for a `postgres://` URL, else SQLite. */
  static readonly fromDb = (db: string) => (isPostgresUrl(db) ? Store.postgres(db) : Store.sqlite(db))

  /** The store on SQLite: the file `db` (created 0600 if new) or `:memory:`. */
  static readonly sqlite = (db: string) =>
    Store.layer(db).pipe(
      Layer.provide(
        Layer.unwrapEffect(
          // The store sets the journal mode itself, after taking the lock.
          Effect.as(createFile(db), SqliteClient.layer({ filename: db, disableWAL: true }))
        )
      )
    )
}
