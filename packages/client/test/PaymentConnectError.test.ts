// The Promise error classes: a literal `code` per class that narrows in a switch (checked by tsc
// through expectTypeOf), `retryable`, and the HTTP answer of a callback refusal.
import { describe, expect, expectTypeOf, it } from "vitest"
import { refusal } from "../src/internal/refusal.js"
import { toPromiseError } from "../src/internal/toPromiseError.js"
import { RateLimited, SignatureRejected } from "../src/PaymentClientError.js"
import * as PaymentConnect from "../src/Promise.js"

const rateLimited = toPromiseError(
  new RateLimited({
    message: "slow down",
    retryAfter: undefined,
    serverMessage: "slow down",
    status: 429,
    requestId: undefined
  })
)

describe("PaymentConnectError", () => {
  it("switch (error.code) narrows each case to its class", () => {
    const describe = (error: unknown): string => {
      if (!PaymentConnect.isPaymentConnectError(error)) return "not ours"
      switch (error.code) {
        case "ERR_PC_RATE_LIMITED":
          expectTypeOf(error).toEqualTypeOf<PaymentConnect.RateLimitedError>()
          return `retry after ${error.retryAfterMs ?? "?"}`
        case "ERR_PC_DUPLICATE_ORDER":
          expectTypeOf(error).toEqualTypeOf<PaymentConnect.DuplicateOrderError>()
          return error.orderId
        case "ERR_PC_TRANSPORT":
          expectTypeOf(error.attempts).toEqualTypeOf<number>()
          return `${error.attempts} attempts`
        case "ERR_PC_TIMEOUT":
          expectTypeOf(error.scope).toEqualTypeOf<"attempt" | "deadline">()
          return error.scope
        case "ERR_PC_CALLBACK_VERIFICATION":
          return error.reason
        case "ERR_PC_SIGNATURE_REJECTED":
          return error.hint ?? error.serverMessage
        case "ERR_PC_INVALID_REQUEST":
          return error.field ?? error.source
        case "ERR_PC_SERVER_ERROR":
          return error.serverCode
        case "ERR_PC_UNEXPECTED_RESPONSE":
          return error.excerpt
        case "ERR_PC_CONFIGURATION":
          return error.reason
        default:
          // Every code is handled: a new class without a case would fail to compile here.
          expectTypeOf(error).toBeNever()
          return "unreachable"
      }
    }
    expect(describe(rateLimited)).toBe("retry after ?")
    expect(describe(new Error("x"))).toBe("not ours")
    expectTypeOf(
      new PaymentConnect.RateLimitedError(
        new RateLimited({ message: "", retryAfter: undefined, serverMessage: "", status: 429, requestId: undefined })
      ).code
    ).toEqualTypeOf<"ERR_PC_RATE_LIMITED">()
  })

  it("retryable is true for what may succeed later, false for refusals", () => {
    expect(rateLimited.retryable).toBe(true)
    const rejected = toPromiseError(
      new SignatureRejected({
        message: "refused",
        serverMessage: "signature verification failed",
        status: 401,
        keyVersion: 1,
        localClockAheadMs: undefined,
        hint: undefined,
        requestId: undefined
      })
    )
    expect(rejected.retryable).toBe(false)
    expect(toPromiseError(refusal("production", "BadSignature", "bad")).retryable).toBe(false)
  })
})

describe("answerFor", () => {
  it("answers 401 for signature refusals, 400 for a bad body, 500 for the receiver's own failures", () => {
    const of = (reason: Parameters<typeof refusal>[1]) =>
      PaymentConnect.answerFor(toPromiseError(refusal("production", reason, "x")))
    expect(of("BadSignature").status).toBe(401)
    expect(of("UnknownKeyVersion").status).toBe(401)
    expect(of("Replayed").status).toBe(401)
    expect(of("MalformedBody").status).toBe(400)
    expect(of("BodyTooLarge").status).toBe(400)
    expect(of("BodyUnreadable").status).toBe(500)
    expect(of("ReplayGuardFailed").status).toBe(500)
    // The Effect class works too, and anything else (the merchant's handler failing) is a 500.
    expect(PaymentConnect.answerFor(refusal("production", "StaleTimestamp", "x")).status).toBe(401)
    expect(PaymentConnect.answerFor(new Error("database down"))).toEqual({
      status: 500,
      body: '{"code":"internalError","msg":"the callback handler failed","data":null}'
    })
    expect(JSON.parse(of("BadSignature").body)).toEqual({
      code: "signError",
      msg: "signature verification failed: BadSignature",
      data: null
    })
  })
})
