// The harness that stands in for vitest in the other runtimes: a case fails exactly when one of its
// expectations fails, so a runtime cannot pass the suite by a matcher that never throws.
import { describe, expect, it } from "vitest"
import * as Harness from "../src/Harness.js"

describe("Harness", () => {
  it("runs every case, names it by its describe titles and reports each failure with its message", async () => {
    Harness.describe("outer", () => {
      Harness.describe("inner", () => {
        Harness.it("passes", () => {
          Harness.expect("abc").toBe("abc")
          Harness.expect({ a: [1, new Uint8Array([2])] }).toEqual({ a: [1, new Uint8Array([2])] })
          Harness.expect("abc").toContain("b")
          Harness.expect("abc").not.toContain("x")
          Harness.expect(new TypeError("x")).toBeInstanceOf(Error)
          Harness.expect(undefined).toBeUndefined()
        })
        Harness.it("fails on toBe", () => Harness.expect(1, "the count").toBe(2))
        Harness.it("fails on toEqual of bytes", () => Harness.expect(new Uint8Array([1])).toEqual(new Uint8Array([2])))
        Harness.it("fails on a negated match", () => Harness.expect("abc").not.toContain("a"))
        Harness.it("fails on a rejection", async () => {
          await Promise.reject(new Error("boom"))
        })
      })
    })
    expect(Harness.caseNames()).toEqual([
      "outer > inner > passes",
      "outer > inner > fails on toBe",
      "outer > inner > fails on toEqual of bytes",
      "outer > inner > fails on a negated match",
      "outer > inner > fails on a rejection"
    ])
    const results = await Harness.runSuites()
    expect(results.map((r) => r.ok)).toEqual([true, false, false, false, false])
    expect(results[1]?.error).toBe("Error: the count: expected 1 to be 2")
    expect(results[3]?.error).toBe('Error: expected "abc" not to contain "a"')
    expect(results[4]?.error).toBe("Error: boom")
  })
})
