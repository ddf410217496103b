// The store: on SQLite, one process per database file, a file only its owner can read (it holds the
// platform private keys); then one suite that both stores, SQLite and PostgreSQL, must pass.
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteConnection from "../src/store/SqliteConnection.js"
import { startPostgres } from "@pc/servers"
import { Effect, LogLevel, Option } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { defaults } from "../src/config/Config.js"
import { start } from "../src/main/Server.js"
import { migrations } from "../src/store/Migrations.js"
import { Store } from "../src/store/Store.js"
import { DRIVER_VARIABLE, defaultDriver, hasNodeSqlite, openDatabase } from "../src/store/SqliteDriver.js"
import { testMerchantPublicKeyPem } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { describeStore } from "./support/storeSuite.js"
import { startMock } from "@pc/test-support/mock"

const betterSqliteLoads = (() => {
  try {
    openDatabase(":memory:", "better-sqlite3").close()
    return true
  } catch {
    return false
  }
})()
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
      }).pipe(Effect.provide(SqliteConnection.layer(db)))
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

describe("the orders' indexes on SQLite (migration 0004)", () => {
  it("are only those a create needs, and the newest orders are still listed first without a sort", async () => {
    const db = join(directory, "indexes.sqlite")
    const listed = await Effect.runPromise(
      Effect.flatMap(Store, (store) =>
        Effect.gen(function* () {
          yield* store.ensureMerchant({ appKey: "m-idx", publicKeyPem: testMerchantPublicKeyPem(), nowMs: 1_000 })
          for (const i of [1, 2, 3]) {
            yield* store.createOrder({
              orderSn: () => `PC-idx-${i}`,
              appKey: "m-idx",
              outerOrder: `o-${i}`,
              amount: "1.00",
              currency: "USD",
              nowMs: 2_000 + i,
              expiresAtMs: 9_000
            })
          }
          return yield* store.recentOrders(2)
        })
      ).pipe(Effect.provide(Store.sqlite(db)), Effect.scoped)
    )
    expect(listed.map((order) => order.orderSn)).toEqual(["PC-idx-3", "PC-idx-2"])
    const schema = await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return {
          indexes: yield* sql<{
            name: string
          }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' ORDER BY name`,
          plan: yield* sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT * FROM orders ORDER BY rowid DESC LIMIT 2`
        }
      }).pipe(Effect.provide(SqliteConnection.layer(db)))
    )
    // The primary key's and UNIQUE (app_key, outer_order)'s own indexes, and the expiry sweep's.
    expect(schema.indexes.map((index) => index.name)).toEqual([
      "orders_due",
      "sqlite_autoindex_orders_1",
      "sqlite_autoindex_orders_2"
    ])
    expect(schema.plan.map((step) => step.detail)).toEqual(["SCAN orders"])
  })
})

// better-sqlite3's addon is built for the Node the workspace installed with (20 in CI): on another
// Node it does not load, and node:sqlite (Node 22.13+, 24+) is the driver there.
if (betterSqliteLoads) describeStore("SQLite (better-sqlite3)", async () => Store.sqlite(":memory:", "better-sqlite3"))
if (hasNodeSqlite()) describeStore("SQLite (node:sqlite)", async () => Store.sqlite(":memory:", "node:sqlite"))

/**
 * Runs `script` on Node 24 (from npm) with `file` as its argument: node:sqlite, for the Node this
 * suite runs on where only better-sqlite3 loads.
 */
const onNode24 = (script: string, file: string) =>
  execFileSync("npx", ["-y", "node@24", "--no-warnings", "--input-type=module", "-e", script, file], {
    encoding: "utf8",
    timeout: 120_000
  })

describe.skipIf(!betterSqliteLoads)("one database file under either driver (needs better-sqlite3's addon)", () => {
  it("is written by better-sqlite3, read and written by node:sqlite, and read back by better-sqlite3", async () => {
    const db = join(directory, "either-driver.sqlite")
    await Effect.runPromise(
      Effect.flatMap(Store, (store) =>
        store.ensureMerchant({ appKey: "m-either", publicKeyPem: testMerchantPublicKeyPem(), nowMs: 1_000 })
      ).pipe(Effect.provide(Store.sqlite(db, "better-sqlite3")))
    )
    const script = `
      import { DatabaseSync } from "node:sqlite"
      const db = new DatabaseSync(process.argv[1])
      const check = db.prepare("PRAGMA integrity_check").all()
      const merchants = db.prepare("SELECT app_key FROM merchants ORDER BY app_key").all()
      db.prepare("UPDATE merchants SET notify_url = ? WHERE app_key = ?").run("https://shop.example/from-node-sqlite", "m-either")
      db.close()
      console.log(JSON.stringify({ check, merchants }))`
    const seen = JSON.parse(onNode24(script, db)) as unknown
    expect(seen).toEqual({
      check: [{ integrity_check: "ok" }],
      merchants: [{ app_key: "m-either" }]
    })
    const read = await Effect.runPromise(
      Effect.flatMap(Store, (store) => store.getMerchant("m-either")).pipe(
        Effect.provide(Store.sqlite(db, "better-sqlite3"))
      )
    )
    expect(Option.map(read, (merchant) => merchant.notifyUrl)).toEqual(
      Option.some("https://shop.example/from-node-sqlite")
    )
  }, 180_000)
})

describe("the default driver", () => {
  it("is node:sqlite where Node has it, else better-sqlite3", () => {
    const saved = process.env[DRIVER_VARIABLE]
    delete process.env[DRIVER_VARIABLE]
    try {
      expect(defaultDriver()).toBe(hasNodeSqlite() ? "node:sqlite" : "better-sqlite3")
      process.env[DRIVER_VARIABLE] = "better-sqlite3"
      expect(defaultDriver()).toBe("better-sqlite3")
    } finally {
      if (saved === undefined) delete process.env[DRIVER_VARIABLE]
      else process.env[DRIVER_VARIABLE] = saved
    }
  })
})

let databases = 0
describeStore("PostgreSQL", async () => Store.postgres(await postgres.createDatabase(`store_${++databases}`)))
