// The store: on SQLite, one process per database file, a file only its owner can read (it holds the
// platform private keys); then one suite that both stores, SQLite and PostgreSQL, must pass.
import { startPostgres } from "@pc/servers"
import { LogLevel } from "effect"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { defaults } from "../src/Config.js"
import { start } from "../src/Server.js"
import { Store } from "../src/store/Store.js"
import { createOrder, dev, startMock } from "./support/mock.js"
import { describeStore } from "./support/storeSuite.js"

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
      const started = Date.now()
      const second = start({ ...defaults, port: 0, db }, { logLevel: LogLevel.None })
      await expect(second).rejects.toThrow(`another mock is using ${db}; stop it or pass another --db`)
      expect(Date.now() - started).toBeLessThan(3_000)

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

describeStore("SQLite", async () => Store.sqlite(":memory:"))
let databases = 0
describeStore("PostgreSQL", async () => Store.postgres(await postgres.createDatabase(`store_${++databases}`)))
