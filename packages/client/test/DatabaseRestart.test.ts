// Issue 32, point 6, from the merchant's side: the real mock on a real PostgreSQL, and PostgreSQL
// restarted while a createOrder is under way. The mock answers serviceUnavailable 503 with
// Retry-After while its database is away; the client retries after that wait, and the call
// succeeds once the database is back, within its deadline.
import { startPostgres, type ThrowawayPostgres } from "@pc/servers"
import { afterAll, beforeAll, expect, it } from "vitest"
import * as PaymentConnect from "../src/Promise.js"
import { type Mock, startMock, TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/test-support/mock"

let postgres: ThrowawayPostgres
let mock: Mock

beforeAll(async () => {
  postgres = await startPostgres()
  mock = await startMock({ environment: "production", db: await postgres.createDatabase("client_restart") })
}, 60_000)
afterAll(async () => {
  await mock?.close()
  await postgres?.stop()
})

it("a createOrder issued while the mock's PostgreSQL restarts succeeds once it is back, within its deadline", async () => {
  const payments = await PaymentConnect.createPaymentClient({
    environment: "production",
    baseUrl: mock.url,
    appKey: TEST_MERCHANT_APP_KEY,
    privateKeys: { 1: testMerchantPrivateKeyPem() },
    retry: { maxAttempts: 10 }
  })
  const warm = await payments.createOrder({ orderId: `restart-warm-${process.pid}`, amount: "1.00", currency: "USD" })
  expect(warm.orderSn).toMatch(/^PC/)

  await postgres.down()
  // The mock answers 503 with Retry-After while nothing listens on PostgreSQL's port.
  const probe = await fetch(`${mock.url}/dev/orders/${warm.orderSn}`)
  expect(probe.status).toBe(503)
  expect(probe.headers.get("retry-after")).toBe("1")

  const issuedAt = Date.now()
  const orderId = `restart-${process.pid}`
  const created = payments.createOrder({ orderId, amount: "12.34", currency: "USD" }, { timeout: "10 seconds" })
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  await postgres.up()
  const order = await created
  const tookMs = Date.now() - issuedAt
  console.log(`createOrder issued during the outage succeeded after ${tookMs} ms`)
  expect(order.outerOrder).toBe(orderId)
  // It outlasted the outage by retrying, and finished within its deadline.
  expect(tookMs).toBeGreaterThanOrEqual(2_000)
  expect(tookMs).toBeLessThan(10_000)
}, 60_000)
