import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isKeyVersion, parse } from "../src/KeyVersion.js"

describe("isKeyVersion", () => {
  it.each([1, 2, 3, 100, Number.MAX_SAFE_INTEGER])("accepts %d", (n) => {
    expect(isKeyVersion(n)).toBe(true)
  })

  it.each([
    0,
    -0,
    -1,
    1.5,
    0.999,
    Number.MAX_SAFE_INTEGER + 1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    "1",
    "2",
    1n,
    null,
    undefined,
    true,
    [1],
    { version: 1 }
  ])("refuses %s", (value) => {
    expect(isKeyVersion(value)).toBe(false)
  })
})

describe("parse", () => {
  it.each([
    ["1", 1],
    ["2", 2],
    ["10", 10],
    ["123", 123],
    ["9007199254740991", 9007199254740991]
  ])("parses %j", (text, expected) => {
    expect(parse(text)).toBe(expected)
  })

  it.each([
    "",
    "0",
    "00",
    "01",
    "v1",
    "V1",
    "1.0",
    "1.",
    " 1",
    "1 ",
    "+1",
    "-1",
    "1e0",
    "0x1",
    "one",
    "\u0661",
    "9007199254740992",
    "99999999999999999999"
  ])("refuses %j", (text) => {
    expect(parse(text)).toBeUndefined()
  })

  it("property: every natural number up to the safe range round-trips through its decimal text", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(parse(String(n))).toBe(n)
      })
    )
  })

  it("property: parse gives a value exactly when it is a key version written plainly", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("0", "1", "9", ".", "-", "+", " ", "v"), maxLength: 6 }),
        (text) => {
          const parsed = parse(text)
          if (parsed === undefined) {
            // Refused: not the plain decimal spelling of a natural number.
            expect(/^[1-9][0-9]*$/.test(text)).toBe(false)
          } else {
            expect(isKeyVersion(parsed)).toBe(true)
            expect(String(parsed)).toBe(text)
          }
        }
      )
    )
  })
})
