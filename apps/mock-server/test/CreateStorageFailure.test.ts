// A create whose insert fails in storage after the signature check is answered internalError (500)
// with what the check decided still on it: sandbox's X-R-Signature-Check on the response and the
// signature note on the request's event, on the fast path and on the HttpApi route alike. The
// failure is a real one: between two starts of the mock on one SQLite file (it holds the file
// alone while it runs), a trigger is added that aborts the insert of some orders.
import { listenEvents } from "@pc/test-support"
import * as Wire from "@pc/core/Wire"
import { LogLevel } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { defaults } from "../src/config/Config.js"
import { start } from "../src/main/Server.js"
import { openDatabase } from "../src/store/SqliteDriver.js"
import { createOrder } from "./support/mock.js"

const dir = mkdtempSync(join(tmpdir(), "pc-storage-failure-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.each([
  ["the fast path", true],
  ["the HttpApi route", false]
])("a create that fails in storage, on %s", (_, createOrderFastPath) => {
  it("answers internalError with the signature check's header, and its event keeps the check's note", async () => {
    const db = join(dir, `${createOrderFastPath ? "fast" : "api"}.sqlite`)
    const config = { ...defaults, port: 0, db, environment: "sandbox" } as const
    // The first start makes the schema; the trigger refuses the orders whose orderId says "lost".
    await (await start(config, { logLevel: LogLevel.None })).close()
    const other = openDatabase(db)
    other
      .prepare(`CREATE TRIGGER refuse_lost BEFORE INSERT ON orders WHEN NEW.outer_order LIKE 'lost-%'
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`)
      .run([])
    other.close()
    const mock = await start(config, { logLevel: LogLevel.None, createOrderFastPath })
    const stream = await listenEvents(mock.url)
    try {
      const body = (orderId: string) => JSON.stringify({ orderId, amount: "10.00", currency: "USD" })
      // Sandbox lets a broken signature through, saying so: the same request, stored, then not.
      const stored = await createOrder(mock.url, body("kept-1"), { signature: "AAAA" })
      expect(stored.status).toBe(200)
      const storedEvent = await stream.next((e) => e.type === "request" && e.status === 200)

      const failed = await createOrder(mock.url, body("lost-1"), { signature: "AAAA" })
      expect(failed.status).toBe(500)
      expect(failed.json.code).toBe("internalError")
      expect(failed.headers.get("x-r-signature-check")).toBe("invalid")
      expect(failed.headers.get("x-r-signature-check")).toBe(stored.headers.get("x-r-signature-check"))
      const failedEvent = await stream.next((e) => e.type === "request" && e.status === 500)
      expect(failedEvent).toMatchObject({ method: "POST", path: Wire.CREATE_ORDER_PATH })
      expect(failedEvent.requestId).toBe(failed.headers.get("x-request-id"))
      expect(failedEvent.signature).toStrictEqual(storedEvent.signature)
      expect(failedEvent.signature).toMatchObject({ cause: expect.any(String) })
    } finally {
      // The stream first: the mock's close waits for open responses.
      await stream.close()
      await mock.close()
    }
  })
})
