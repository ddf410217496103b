import { describe, expect, it } from "vitest"
import {
  errorCodes,
  httpStatus,
  httpStatusByCode,
  isResultCode,
  type ResultCode,
  resultCodes,
  SIGN_ERROR_PREFIX,
  signErrorMessage
} from "../src/ErrorCode.js"

// The table "Error codes and HTTP statuses" of docs/CONTRACT.md, row by row.
const CONTRACT_TABLE: ReadonlyArray<readonly [string, number]> = [
  ["SUCCESS", 200],
  ["signError", 401],
  ["paramError", 400],
  ["duplicateOrder", 409],
  ["unsupportedMediaType", 415],
  ["payloadTooLarge", 413],
  ["notFound", 404],
  ["methodNotAllowed", 405],
  ["rateLimited", 429],
  ["unauthorized", 401],
  ["serviceUnavailable", 503],
  ["internalError", 500]
]

describe("result codes and HTTP statuses (CONTRACT.md)", () => {
  it.each(CONTRACT_TABLE)("%s answers with HTTP %d", (code, status) => {
    expect(isResultCode(code)).toBe(true)
    expect(httpStatus(code as ResultCode)).toBe(status)
  })

  it("knows exactly the codes of the contract's table", () => {
    expect([...resultCodes].sort()).toEqual(CONTRACT_TABLE.map(([code]) => code).sort())
    expect(Object.keys(httpStatusByCode).sort()).toEqual(CONTRACT_TABLE.map(([code]) => code).sort())
  })

  it("lists every code except SUCCESS as an error code, each with a 4xx or 5xx status", () => {
    expect(errorCodes).not.toContain("SUCCESS")
    expect([...errorCodes].sort()).toEqual(
      CONTRACT_TABLE.map(([code]) => code)
        .filter((code) => code !== "SUCCESS")
        .sort()
    )
    for (const code of errorCodes) expect(httpStatus(code)).toBeGreaterThanOrEqual(400)
  })

  it("gives SUCCESS the only 2xx status", () => {
    const twoHundreds = resultCodes.filter((code) => httpStatus(code) < 300)
    expect(twoHundreds).toEqual(["SUCCESS"])
  })
})

describe("isResultCode", () => {
  it.each([
    "success",
    "SIGNERROR",
    "sign_error",
    "signerror",
    "ParamError",
    "",
    "toString",
    "constructor",
    "__proto__",
    "hasOwnProperty",
    undefined,
    null,
    200,
    401
  ])("refuses %j", (value) => {
    expect(isResultCode(value)).toBe(false)
  })
})

describe("signErrorMessage", () => {
  it("starts with 'signature verification failed' and names the cause after ': '", () => {
    const message = signErrorMessage("timestamp outside the 5 minute window")
    expect(message.startsWith("signature verification failed")).toBe(true)
    expect(message).toBe("signature verification failed: timestamp outside the 5 minute window")
  })

  it("keeps the prefix for any cause", () => {
    for (const cause of ["unknown appKey", "missing header X-R-Signature", "", "key version 3 is disabled"]) {
      const message = signErrorMessage(cause)
      expect(message.startsWith("signature verification failed")).toBe(true)
      expect(message.endsWith(cause)).toBe(true)
    }
  })

  it("exports the prefix the contract fixes", () => {
    expect(SIGN_ERROR_PREFIX).toBe("signature verification failed")
  })
})
