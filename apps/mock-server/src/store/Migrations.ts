// The mock's schema, as ordered migrations, for SQLite and PostgreSQL. Never edit a shipped
// migration: add the next one. The differences between the dialects: the type of epoch
// milliseconds, from Dialect.ts (on SQLite the statements are exactly as shipped), and the index
// that lists the newest orders, which SQLite drops (0004).
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { epochMsType } from "./Dialect.js"

export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_initial": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ms = epochMsType(sql)
    yield* sql`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`
    yield* sql`CREATE TABLE merchants (
      app_key TEXT PRIMARY KEY,
      notify_url TEXT,
      created_at TEXT NOT NULL
    )`
    yield* sql`CREATE TABLE merchant_keys (
      app_key TEXT NOT NULL REFERENCES merchants(app_key),
      version INTEGER NOT NULL CHECK (version >= 1),
      public_key_pem TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
      uploaded_at TEXT NOT NULL,
      PRIMARY KEY (app_key, version)
    )`
    yield* sql`CREATE TABLE platform_keys (
      version INTEGER PRIMARY KEY CHECK (version >= 1),
      private_key_pem TEXT NOT NULL,
      public_key_pem TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('current', 'published', 'retired')),
      created_at TEXT NOT NULL
    )`
    yield* sql`CREATE UNIQUE INDEX platform_keys_one_current ON platform_keys(status) WHERE status = 'current'`
    yield* sql`CREATE TABLE orders (
      order_sn TEXT PRIMARY KEY,
      app_key TEXT NOT NULL REFERENCES merchants(app_key),
      outer_order TEXT NOT NULL,
      amount TEXT NOT NULL,
      currency TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('CREATED', 'PAID', 'FAILED', 'EXPIRED')),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      expires_at_ms ${ms} NOT NULL,
      UNIQUE (app_key, outer_order)
    )`
    yield* sql`CREATE INDEX orders_due ON orders(expires_at_ms) WHERE status = 'CREATED'`
    yield* sql`CREATE TABLE deliveries (
      id TEXT PRIMARY KEY,
      order_sn TEXT NOT NULL REFERENCES orders(order_sn),
      app_key TEXT NOT NULL,
      event_id TEXT NOT NULL UNIQUE,
      event_type TEXT NOT NULL,
      body TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempt_count INTEGER NOT NULL DEFAULT 0,
      next_attempt_at_ms ${ms},
      last_error TEXT,
      created_at TEXT NOT NULL,
      created_at_ms ${ms} NOT NULL,
      delivered_at TEXT
    )`
    yield* sql`CREATE INDEX deliveries_pending ON deliveries(next_attempt_at_ms) WHERE status = 'pending'`
    yield* sql`CREATE INDEX deliveries_order ON deliveries(order_sn)`
    yield* sql`CREATE TABLE delivery_attempts (
      delivery_id TEXT NOT NULL REFERENCES deliveries(id),
      attempt INTEGER NOT NULL,
      at TEXT NOT NULL,
      url TEXT,
      http_status INTEGER,
      error TEXT,
      key_version INTEGER,
      duration_ms INTEGER NOT NULL,
      PRIMARY KEY (delivery_id, attempt)
    )`
  }),
  // What the dashboard shows of each attempt besides its outcome: the headers and body as sent
  // (NULL for an attempt that sent nothing, and for attempts recorded before this migration), and
  // the index that lists the newest orders without reading them all.
  "0002_attempt_request": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE delivery_attempts ADD COLUMN request_headers TEXT`
    yield* sql`ALTER TABLE delivery_attempts ADD COLUMN request_body TEXT`
    // In the lists' exact order (newest first, ties by key), so no sort is left to do.
    yield* sql`CREATE INDEX orders_recent ON orders(created_at, order_sn)`
    yield* sql`CREATE INDEX merchants_recent ON merchants(created_at, app_key)`
  }),
  // The index a claim of due callbacks walks (DeliveryStore.claimDue): the merchants that have
  // pending deliveries, and each one's earliest due rows, without reading a whole backlog.
  "0003_delivery_claim": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE INDEX deliveries_pending_merchant ON deliveries(app_key, next_attempt_at_ms) WHERE status = 'pending'`
  }),
  // On SQLite the newest orders are listed in the order they were written (the table's rowid,
  // OrderStore.recentOrders), so `orders_recent` only cost every create a fifth b-tree to write:
  // about 5 us of a new order's 42 us insert and commit at one connection (bench/RESULTS.md).
  // PostgreSQL's tables have no such order: its list keeps the index.
  "0004_orders_recent_by_rowid": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({ sqlite: () => sql`DROP INDEX orders_recent`, orElse: () => Effect.void })
  })
}
