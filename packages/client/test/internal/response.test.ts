import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { classifyCreateOrder, excerpt, fieldFromMessage, redactBase64 } from "../../src/internal/response.js"

describe("fieldFromMessage", () => {
  it.each([
    ["orderId must be 1 to 64 characters", "orderId"],
    ["amount: too many decimals", "amount"],
    ["amount 10.001 has 3 decimals but USD allows at most 2", "amount"],
    ['invalid field "currency"', "currency"],
    ["missing parameter orderId", "orderId"],
    ["currency is not an active ISO 4217 code", "currency"],
    ["the value of currency is wrong", "currency"],
    ["body is not a JSON object", undefined],
    ["", undefined]
  ])("%s -> %s", (message, field) => {
    expect(fieldFromMessage(message)).toBe(field)
  })

  it("null msg has no field", () => {
    expect(fieldFromMessage(null)).toBeUndefined()
  })
})

describe("excerpt", () => {
  it("collapses whitespace and cuts at 200 characters", () => {
    expect(excerpt("  a \n\n b  ")).toBe("a b")
    const long = excerpt("x-".repeat(500))
    expect(long.length).toBe(200)
    expect(long.endsWith("…")).toBe(true)
  })

  it("redacts runs of 100+ Base64 characters before the cut, so no prefix of a signature survives", () => {
    const signature = `${"AbC0+/".repeat(57)}==` // 344 characters, like an RSA-2048 signature
    expect(redactBase64(`sig: ${signature} ok`)).toBe("sig: [redacted base64] ok")
    expect(excerpt(`${"<p>".repeat(60)}${signature}`)).toBe(`${"<p>".repeat(60)}[redacted base64]`)
    // Shorter runs (ids, words) stay.
    const id = "a".repeat(99)
    expect(redactBase64(`id ${id}`)).toBe(`id ${id}`)
  })
})

describe("classifyCreateOrder", () => {
  const context = {
    nowMs: Date.parse("2026-11-21T08:00:00Z"),
    keyVersion: 1,
    orderId: "M-1",
    amount: "10.00",
    currency: "USD"
  }
  const classify = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    classifyCreateOrder({ status, headers, text: typeof body === "string" ? body : JSON.stringify(body) }, context)
  const tagOf = (result: ReturnType<typeof classify>) => (Either.isLeft(result) ? result.left.error._tag : "Right")

  it("decides on the envelope's code, not the status", () => {
    expect(tagOf(classify(200, { code: "signError", msg: "x", data: null }))).toBe("SignatureRejected")
    expect(tagOf(classify(500, { code: "paramError", msg: "orderId bad", data: null }))).toBe("InvalidRequest")
    expect(tagOf(classify(503, { code: "internalError", msg: "x", data: null }))).toBe("ServerError")
    expect(tagOf(classify(503, { code: "serviceUnavailable", msg: "x", data: null }))).toBe("ServerError")
    expect(tagOf(classify(429, { code: "rateLimited", msg: "x", data: null }))).toBe("RateLimited")
    expect(tagOf(classify(409, { code: "duplicateOrder", msg: "x", data: null }))).toBe("DuplicateOrder")
    expect(tagOf(classify(415, { code: "unsupportedMediaType", msg: "x", data: null }))).toBe("InvalidRequest")
    expect(tagOf(classify(413, { code: "payloadTooLarge", msg: "x", data: null }))).toBe("InvalidRequest")
    expect(tagOf(classify(404, { code: "notFound", msg: "x", data: null }))).toBe("InvalidRequest")
    expect(tagOf(classify(405, { code: "methodNotAllowed", msg: "x", data: null }))).toBe("InvalidRequest")
    expect(tagOf(classify(502, { code: "somethingNew", msg: "x", data: null }))).toBe("ServerError")
    expect(tagOf(classify(200, { code: "somethingNew", msg: "x", data: null }))).toBe("UnexpectedResponse")
    expect(
      tagOf(
        classify(500, { code: "SUCCESS", msg: null, data: { orderSn: "PC1", outerOrder: "M-1", h5Url: "http://x" } })
      )
    ).toBe("Right")
  })

  it("anything that is not an envelope is UnexpectedResponse", () => {
    expect(tagOf(classify(200, ""))).toBe("UnexpectedResponse")
    expect(tagOf(classify(200, "[]"))).toBe("UnexpectedResponse")
    expect(tagOf(classify(200, { code: 1, msg: null, data: null }))).toBe("UnexpectedResponse")
    expect(tagOf(classify(502, "<html>Bad Gateway</html>"))).toBe("UnexpectedResponse")
  })

  it("redacts Base64 runs from the server's msg too", () => {
    const result = classify(500, { code: "internalError", msg: `bad signature ${"Zm9v".repeat(40)}`, data: null })
    expect(Either.isLeft(result) && result.left.error.message).toContain("bad signature [redacted base64]")
  })

  it("carries Retry-After for the retry loop", () => {
    const result = classify(429, { code: "rateLimited", msg: "x", data: null }, { "retry-after": "7" })
    expect(Either.isLeft(result) && result.left.retryAfterMs).toBe(7000)
  })
})
