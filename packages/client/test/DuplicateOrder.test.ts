// What a merchant can do with a DuplicateOrder, against the real mock in production: the error says
// which orderId and what this call asked for (the wire answer has data: null, and the API has no
// order query), and the existing order comes back by creating it again with the amount and
// currency the merchant stored for it: create-order is idempotent on those.
import { NodeCrypto } from "@pc/crypto-node"
import { type Mock, startMock, TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/test-support/mock"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as NodeHttpClient from "../src/NodeHttpClient.js"
import * as PaymentClient from "../src/PaymentClient.js"
import * as PaymentConnect from "../src/Promise.js"

let mock: Mock

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
}, 60_000)
afterAll(async () => {
  await mock?.close()
})

describe("DuplicateOrder against the real mock", () => {
  it("Promise: DuplicateOrderError names the orderId and the refused amount; the stored amount gives the order back", async () => {
    const payments = await PaymentConnect.createPaymentClient({
      environment: "production",
      baseUrl: mock.url,
      appKey: TEST_MERCHANT_APP_KEY,
      privateKeys: { 1: testMerchantPrivateKeyPem() }
    })
    const orderId = `shop-prod:dup-promise-${process.pid}`
    const first = await payments.createOrder({ orderId, amount: "10.00", currency: "USD" })

    const error: unknown = await payments.createOrder({ orderId, amount: 12, currency: "USD" }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(PaymentConnect.DuplicateOrderError)
    const duplicate = error as PaymentConnect.DuplicateOrderError
    expect(duplicate).toMatchObject({
      code: "ERR_PC_DUPLICATE_ORDER",
      orderId,
      amount: "12.00",
      currency: "USD",
      retryable: false
    })
    expect(duplicate.message).toContain("12.00 USD")
    expect(duplicate.requestId).toEqual(expect.any(String))

    // Another currency is a duplicate too.
    await expect(payments.createOrder({ orderId, amount: "10.00", currency: "EUR" })).rejects.toMatchObject({
      code: "ERR_PC_DUPLICATE_ORDER",
      amount: "10.00",
      currency: "EUR"
    })

    // The recovery the README gives: the amount and currency the shop stored for this orderId.
    const existing = await payments.createOrder({ orderId, amount: 10, currency: "USD" })
    expect(existing).toEqual(first)
  })

  it("Effect: DuplicateOrder carries orderId, amount and currency; the stored amount gives the order back", async () => {
    const orderId = `shop-prod:dup-effect-${process.pid}`
    const program = Effect.gen(function* () {
      const client = yield* PaymentClient.make({
        environment: "production",
        baseUrl: mock.url,
        appKey: TEST_MERCHANT_APP_KEY,
        crypto: NodeCrypto,
        privateKeys: { 1: Redacted.make(testMerchantPrivateKeyPem()) }
      })
      const first = yield* client.createOrder({ orderId, amount: "5.5", currency: "USD" })
      const refused = yield* Effect.flip(client.createOrder({ orderId, amount: "5.60", currency: "USD" }))
      const existing = yield* client.createOrder({ orderId, amount: "5.50", currency: "USD" })
      return { first, refused, existing }
    }).pipe(Effect.provide(NodeHttpClient.layer))
    const { first, refused, existing } = await Effect.runPromise(program)
    expect(refused._tag).toBe("DuplicateOrder")
    expect(refused).toMatchObject({ orderId, amount: "5.60", currency: "USD", status: 409 })
    expect(existing).toEqual(first)
  })
})
