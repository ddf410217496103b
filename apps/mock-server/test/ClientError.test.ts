// What the mock answers when Node judges a request before any route (src/server/ClientError.ts).
import { describe, expect, it } from "vitest"
import { clientErrorAnswer, headerRuleViolation } from "../src/server/ClientError.js"

describe("clientErrorAnswer", () => {
  it("names a timeout a timeout, not a malformed request", () => {
    const answer = clientErrorAnswer("ERR_HTTP_REQUEST_TIMEOUT")
    expect(answer).toMatchObject({ status: 400, code: "paramError" })
    expect(answer.msg).toMatch(/timed out/)
    expect(answer.msg).not.toMatch(/malformed/)
  })

  it("answers an oversized header section 431 paramError, and framing errors with paramError 400", () => {
    expect(clientErrorAnswer("HPE_HEADER_OVERFLOW")).toMatchObject({ status: 431, code: "paramError" })
    expect(clientErrorAnswer("HPE_INVALID_CHUNK_SIZE")).toMatchObject({ status: 400, code: "paramError" })
  })
})

describe("headerRuleViolation", () => {
  it("refuses a missing or repeated Host, and a repeated Content-Type", () => {
    expect(headerRuleViolation({ httpVersion: "1.1", rawHeaders: [] })).toMatchObject({ status: 400 })
    expect(headerRuleViolation({ httpVersion: "1.0", rawHeaders: [] })).toBeUndefined()
    expect(headerRuleViolation({ httpVersion: "1.1", rawHeaders: ["Host", "a", "host", "a"] })).toMatchObject({
      status: 400
    })
    expect(
      headerRuleViolation({ httpVersion: "1.1", rawHeaders: ["Host", "a", "Content-Type", "x", "CONTENT-TYPE", "y"] })
    ).toMatchObject({ status: 415, code: "unsupportedMediaType" })
    expect(headerRuleViolation({ httpVersion: "1.1", rawHeaders: ["Host", "a", "Content-Type", "x"] })).toBeUndefined()
  })
})
