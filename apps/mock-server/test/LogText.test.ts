// What request-derived text and defects look like in a log line (src/log/LogText.ts).
import { describe, expect, it } from "vitest"
import { capped, describeDefect, LOG_EXCERPT_CHARS } from "../src/log/LogText.js"

describe("capped", () => {
  it("keeps short text and cuts long text with a marker", () => {
    expect(capped("short")).toBe("short")
    const long = capped("x".repeat(15_000))
    expect(long.startsWith("x".repeat(LOG_EXCERPT_CHARS))).toBe(true)
    expect(long).toMatch(/…\(200 of 15000 chars\)$/)
  })
})

describe("describeDefect", () => {
  it("writes a stack overflow with its message and stack, where logfmt wrote {}", () => {
    const overflow = (() => {
      const recurse = (n: number): number => recurse(n + 1) + 1
      try {
        recurse(0)
      } catch (error) {
        return error
      }
    })()
    const text = describeDefect(overflow)
    expect(text).toMatch(/^RangeError: Maximum call stack size exceeded/)
    expect(text).toMatch(/\n\s+at /)
    expect(text.length).toBeLessThan(4_100)
  })

  it("never throws, whatever the value", () => {
    expect(describeDefect("boom")).toBe("non-Error defect: boom")
    const hostile = {
      toString: () => {
        throw new Error("no")
      }
    }
    expect(describeDefect(hostile)).toBe("a defect that cannot be described")
  })
})
