// The linear depth scan (src/domain/JsonDepth.ts) that runs before JSON.parse.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { checkJsonDepth, MAX_JSON_DEPTH } from "../src/domain/JsonDepth.js"

/** The depth JSON.parse would build, measured on the parsed value (only for shallow test values). */
const parsedDepth = (value: unknown): number =>
  typeof value === "object" && value !== null
    ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(parsedDepth))
    : 0

describe("checkJsonDepth", () => {
  it("names the top-level field under which the text nests too deep", () => {
    const deep = "[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH)
    expect(checkJsonDepth(`{"orderId":"x","amount":${deep}}`)).toEqual({ ok: false, field: "amount" })
    expect(checkJsonDepth(`{"a\\"b":${deep}}`)).toEqual({ ok: false, field: 'a"b' })
    expect(checkJsonDepth(`[${deep}]`)).toEqual({ ok: false, field: "body" })
  })

  it("accepts exactly 64 levels, the top-level object included", () => {
    const inner = "[".repeat(MAX_JSON_DEPTH - 1) + "]".repeat(MAX_JSON_DEPTH - 1)
    expect(checkJsonDepth(`{"amount":${inner}}`)).toEqual({ ok: true, depth: MAX_JSON_DEPTH })
  })

  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = `{"a":"${"[".repeat(500)}\\"${"{".repeat(500)}"}`
    expect(checkJsonDepth(text)).toEqual({ ok: true, depth: 1 })
  })

  it("agrees with the depth of what JSON.parse builds, for any JSON value", () => {
    fc.assert(
      fc.property(fc.json({ depthSize: "medium" }), (text) => {
        const result = checkJsonDepth(text, 1_000)
        expect(result).toEqual({ ok: true, depth: parsedDepth(JSON.parse(text)) })
      }),
      { numRuns: 500 }
    )
  })

  it("stops at the limit on a text nested a million deep", () => {
    expect(checkJsonDepth("[".repeat(1_000_000))).toEqual({ ok: false, field: "body" })
  })
})
