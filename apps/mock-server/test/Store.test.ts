// The store: on SQLite, one process per database file, a file only its owner can read (it holds the
// platform private keys); then one suite that both stores, SQLite and PostgreSQL, must pass.
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { startPostgres } from "@pc/servers"
import { Effect, LogLevel, Option } from "effect"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { defaults } from "../src/config/Config.js"
import { start } from "../src/main/Server.js"
import { migrations } from "../src/store/Migrations.js"
import { Store } from "../src/store/Store.js"
import { createOrder, dev } from "./support/mock.js"
import { describeStore } from "./support/storeSuite.js"
import { startMock } from "@pc/test-support/mock"

const directory = mkdtempSync(join(tmpdir(), "pc-mock-store-"))
const postgres = await startPostgres()
afterAll(async () => {
  await postgres.stop()
  rmSync(directory, { recursive: true, force: true })
})

describe("a database file", () => {
  it("is made readable and writable by its owner only, WAL file included", async () => {
    const db = join(directory, "nested", "private.sqlite")
    const mock = await startMock({ environment: "production", db })
    try {
      expect(statSync(db).mode & 0o777).toBe(0o600)
      expect(statSync(`${db}-wal`).mode & 0o777).toBe(0o600)
    } finally {
      await mock.close()
    }
  })

  it("serves one mock only: a second one on the same file fails at once and says why; the first keeps serving", async () => {
    const db = join(directory, "shared.sqlite")
    const first = await startMock({ environment: "sandbox", db })
    try {
      // Refused with the reason; how soon (SQLite's 250 ms lock probe, not its 5 s busy wait) is
      // a figure for the bench, not a bound for a test on a loaded machine.
      const second = start({ ...defaults, port: 0, db }, { logLevel: LogLevel.None })
      await expect(second).rejects.toThrow(`another mock is using ${db}; stop it or pass another --db`)

      const body = JSON.stringify({ orderId: `lock-${Date.now()}`, amount: "1.00", currency: "USD" })
      const created = await createOrder(first.url, body)
      expect(created.json.code).toBe("SUCCESS")
      expect((await dev(first.url, "GET", "/healthz")).json.code).toBe("SUCCESS")
    } finally {
      await first.close()
    }
    // Closed, the file is free again.
    const again = await startMock({ environment: "sandbox", db })
    await again.close()
  })
})

describe("a database file from before the attempts' request details (migration 0001 only)", () => {
  it("is migrated on open: its attempts read back with no request recorded, and the lists work", async () => {
    const db = join(directory, "upgrade.sqlite")
    // The schema and rows an earlier version of the mock left behind.
    await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* Migrator.make({})({ loader: Migrator.fromRecord({ "0001_initial": migrations["0001_initial"]! }) })
        yield* sql`INSERT INTO merchants (app_key, notify_url, created_at) VALUES ('m-1', NULL, '2026-01-01T00:00:00.000Z')`
        yield* sql`INSERT INTO orders (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
          VALUES ('PC-old', 'm-1', 'o-old', '1.00', 'USD', 'PAID', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z', 1)`
        yield* sql`INSERT INTO deliveries (id, order_sn, app_key, event_id, event_type, body, status, attempt_count, created_at, created_at_ms)
          VALUES ('dlv-old', 'PC-old', 'm-1', 'evt-old', 'order.paid', '{}', 'delivered', 1, '2026-01-01T00:00:01.000Z', 1)`
        yield* sql`INSERT INTO delivery_attempts (delivery_id, attempt, at, url, http_status, error, key_version, duration_ms)
          VALUES ('dlv-old', 1, '2026-01-01T00:00:01.000Z', 'http://x', 200, NULL, 1, 7)`
      }).pipe(Effect.provide(SqliteClient.layer({ filename: db })))
    )
    const read = await Effect.runPromise(
      Effect.flatMap(Store, (store) =>
        Effect.all({
          delivery: store.getDelivery("dlv-old"),
          orders: store.recentOrders(10),
          merchants: store.recentMerchants(10)
        })
      ).pipe(Effect.provide(Store.sqlite(db)), Effect.scoped)
    )
    expect(Option.getOrThrow(read.delivery).attempts).toEqual([
      expect.objectContaining({ attempt: 1, httpStatus: 200, durationMs: 7, requestHeaders: null, requestBody: null })
    ])
    expect(read.orders.map((order) => order.orderSn)).toEqual(["PC-old"])
    expect(read.merchants).toEqual([{ appKey: "m-1", notifyUrl: null, keys: [] }])
  })
})

describeStore("SQLite", async () => Store.sqlite(":memory:"))
let databases = 0
describeStore("PostgreSQL", async () => Store.postgres(await postgres.createDatabase(`store_${++databases}`)))
