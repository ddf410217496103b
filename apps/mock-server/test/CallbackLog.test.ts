// The log line of each recorded callback attempt (Outcomes.ts): written with plain calls rather than
// from a fiber, it must still reach the mock's output with its fields. The built mock as its own
// process, a real receiver that refuses the first attempt and takes the second.
import * as Wire from "@pc/core/Wire"
import { Schema } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { killAllMocks, spawnMock } from "./support/mockProcess.js"
import { startReceiver, until } from "@pc/test-support"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  killAllMocks()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it("logs each recorded attempt: a refused one with its error and retry, the delivered one", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pc-callback-log-"))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  // A real receiver that refuses the first attempt and takes the second (@pc/test-support's).
  const receiver = await startReceiver((_request, n) =>
    n === 0 ? { status: 503, body: "busy, try later" } : { status: 200, body: "ok" }
  )
  cleanups.push(() => receiver.close())
  const receiverUrl = receiver.url

  const mock = await spawnMock([
    "--env",
    "production",
    "--db",
    join(dir, "mock.sqlite"),
    "--callback-backoff-ms",
    "200"
  ])
  const set = await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
    notifyUrl: receiverUrl
  })
  expect(set.json.code).toBe("SUCCESS")
  const created = await createOrder(mock.url, JSON.stringify({ orderId: "log-1", amount: "1.00", currency: "USD" }))
  const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
  expect((await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)).json.code).toBe("SUCCESS")

  const lines = await until(
    () => {
      const found = mock
        .output()
        .split("\n")
        .filter((line) => line.includes(orderSn) && line.includes("callback"))
      return found.some((line) => line.includes("callback delivered")) ? found : undefined
    },
    "the delivered callback's log line",
    { timeoutMs: 15_000, intervalMs: 20 }
  )
  const failed = lines.find((line) => line.includes("callback attempt failed"))
  const delivered = lines.find((line) => line.includes("callback delivered"))
  expect(failed).toMatch(/deliveryId=\S+/)
  expect(failed).toContain("attempt=1")
  expect(failed).toContain("httpStatus=503")
  expect(failed).toContain("busy, try later")
  expect(failed).toMatch(/next=\S*\d{4}-\d\d-\d\dT/)
  expect(delivered).toContain("attempt=2")
  expect(delivered).toContain("httpStatus=200")
  expect(delivered).toContain("next=delivered")
}, 60_000)
