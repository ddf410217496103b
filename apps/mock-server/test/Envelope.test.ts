// The error envelope's ApiError: a typed failure that answers the client. It captures no stack
// (the frames cost 7 µs a construction and nothing reads them) and leaves the process's
// Error.stackTraceLimit as it found it, for the mock's host and every other error.
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { fromError } from "../src/api/Envelope.js"
import { ApiError, signError } from "../src/domain/ApiError.js"

describe("ApiError", () => {
  it("is a tagged, yieldable failure whose envelope carries its code and message", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        return yield* signError("timestamp outside the window", { "x-r-signature-check": "invalid" })
      })
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
    expect(error).toBeInstanceOf(ApiError)
    expect(error?._tag).toBe("ApiError")
    const response = fromError(error!)
    expect(response.status).toBe(401)
    expect(response.headers["x-r-signature-check"]).toBe("invalid")
  })

  it("captures no stack frames and restores the process's stack trace limit", () => {
    const original = Error.stackTraceLimit
    Error.stackTraceLimit = 7
    try {
      const error = new ApiError({ code: "paramError", msg: "amount must be positive" })
      expect(error.stack?.split("\n").filter((line) => line.trimStart().startsWith("at "))).toEqual([])
      expect(Error.stackTraceLimit).toBe(7)
      expect(new Error("a fault").stack?.split("\n").filter((line) => line.trimStart().startsWith("at ")).length).toBe(
        7
      )
    } finally {
      Error.stackTraceLimit = original
    }
  })
})
