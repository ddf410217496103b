import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as PaymentClientError from "../src/PaymentClientError.js"

const errors = {
  signature: new PaymentClientError.SignatureRejected({
    message: "rejected",
    serverMessage: "signature verification failed: x",
    status: 401,
    keyVersion: 1,
    localClockAheadMs: undefined,
    hint: undefined,
    requestId: undefined
  }),
  invalid: new PaymentClientError.InvalidRequest({
    message: "invalid",
    source: "server",
    code: "paramError",
    field: "amount",
    serverMessage: "amount bad",
    status: 400,
    requestId: undefined
  }),
  duplicate: new PaymentClientError.DuplicateOrder({
    message: "dup",
    orderId: "M-1",
    amount: "12.00",
    currency: "USD",
    serverMessage: "dup",
    status: 409,
    requestId: undefined
  }),
  rate: new PaymentClientError.RateLimited({
    message: "slow",
    retryAfter: Duration.seconds(1),
    serverMessage: "slow",
    status: 429,
    requestId: undefined
  }),
  server: new PaymentClientError.ServerError({
    message: "boom",
    code: "internalError",
    serverMessage: "boom",
    status: 500,
    requestId: "r-1"
  }),
  transport: new PaymentClientError.TransportError({ message: "reset", cause: new Error("ECONNRESET") }),
  timeout: new PaymentClientError.Timeout({ message: "late", scope: "attempt", timeout: Duration.seconds(10) }),
  html502: new PaymentClientError.UnexpectedResponse({
    message: "html",
    status: 502,
    contentType: "text/html",
    excerpt: "<html>",
    requestId: undefined
  }),
  html403: new PaymentClientError.UnexpectedResponse({
    message: "html",
    status: 403,
    contentType: "text/html",
    excerpt: "<html>",
    requestId: undefined
  }),
  config: new PaymentClientError.ConfigurationError({ message: "weak", reason: "WeakKey", option: "privateKeys[1]" })
}

describe("PaymentClientError", () => {
  it("retries transport errors, timeouts, server errors, rate limits and non-envelope 5xx only", () => {
    expect(
      Object.fromEntries(Object.entries(errors).map(([name, error]) => [name, PaymentClientError.isRetryable(error)]))
    ).toEqual({
      signature: false,
      invalid: false,
      duplicate: false,
      rate: true,
      server: true,
      transport: true,
      timeout: true,
      html502: true,
      html403: false,
      config: false
    })
  })

  it("every class is an Error with its tag and message, and recognised by isPaymentClientError", () => {
    for (const error of Object.values(errors)) {
      expect(error).toBeInstanceOf(Error)
      expect(error.message.length).toBeGreaterThan(0)
      expect(PaymentClientError.isPaymentClientError(error)).toBe(true)
    }
    expect(PaymentClientError.isPaymentClientError(new Error("x"))).toBe(false)
    expect(PaymentClientError.isPaymentClientError({ _tag: "Timeout" })).toBe(false)
  })

  it.effect("the errors are yieldable and caught by tag", () =>
    Effect.gen(function* () {
      const caught = yield* Effect.fail(errors.duplicate).pipe(
        Effect.catchTag("DuplicateOrder", (e) => Effect.succeed(e.orderId))
      )
      expect(caught).toBe("M-1")
    })
  )
})
