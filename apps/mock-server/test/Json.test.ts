// The raw members of a JSON object (src/domain/Json.ts): each top-level key with its value exactly as
// written, and duplicate keys found, for any text JSON.parse accepts as an object.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isNumberText, objectMembers } from "../src/domain/Json.js"

const members = (text: string) => {
  const result = objectMembers(text)
  if (!result.ok) throw new Error(result.message)
  return Object.fromEntries(result.members)
}

describe("objectMembers", () => {
  it("gives each value's text as written: numbers keep their digits", () => {
    expect(members('{"orderId":"M-1","amount":10.500,"currency":"USD"}')).toEqual({
      orderId: '"M-1"',
      amount: "10.500",
      currency: '"USD"'
    })
    expect(members('{"a":99999999999.9999999,"b":1e2,"c":-0,"d":0.30000000000000001}')).toEqual({
      a: "99999999999.9999999",
      b: "1e2",
      c: "-0",
      d: "0.30000000000000001"
    })
  })

  it("skips JSON whitespace anywhere between tokens", () => {
    expect(members(' \t\r\n{ "a" :\n1 , "b"\t:\r"x" }\n')).toEqual({ a: "1", b: '"x"' })
    expect(members("{}")).toEqual({})
    expect(members(" { } ")).toEqual({})
  })

  it("takes nested objects and arrays whole, brackets and quotes inside strings included", () => {
    const text = '{"a":{"b":[1,{"c":"]}\\"{["}],"d":"}"},"e":[],"f":"\\\\","g":null,"h":true}'
    expect(members(text)).toEqual({
      a: '{"b":[1,{"c":"]}\\"{["}],"d":"}"}',
      e: "[]",
      f: '"\\\\"',
      g: "null",
      h: "true"
    })
  })

  it("decodes keys, so an escaped key is the same key", () => {
    expect(members('{"\\u0061":1}')).toEqual({ a: "1" })
    expect(objectMembers('{"a":1,"\\u0061":2}')).toEqual({ ok: false, message: 'duplicate key "a"' })
  })

  it("finds duplicate top-level keys, not nested ones", () => {
    expect(objectMembers('{"orderId":"o","amount":"1","orderId":"p"}')).toEqual({
      ok: false,
      message: 'duplicate key "orderId"'
    })
    expect(objectMembers('{"a":{"x":1,"x":2},"b":[{"x":1,"x":2}]}').ok).toBe(true)
    expect(objectMembers('{"__proto__":1,"__proto__":2}')).toEqual({ ok: false, message: 'duplicate key "__proto__"' })
  })

  it("shortens a long duplicate key in its message", () => {
    const key = "k".repeat(10_000)
    const result = objectMembers(`{"${key}":1,"${key}":2}`)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message.length).toBeLessThan(100)
  })

  it("refuses what is not an object", () => {
    for (const text of ["[1]", '"a"', "1", "null", "", "{", '{"a"}', '{"a":1,}', "\ufeff{}"]) {
      expect(objectMembers(text).ok).toBe(false)
    }
  })

  it("agrees with JSON.parse on every object JSON.stringify writes", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), (object, pretty) => {
        const text = JSON.stringify(object, null, pretty ? 2 : undefined)
        const result = objectMembers(text)
        expect(result.ok).toBe(true)
        if (!result.ok) return
        const parsed = JSON.parse(text) as Record<string, unknown>
        expect([...result.members.keys()].sort()).toEqual(Object.keys(parsed).sort())
        for (const [key, raw] of result.members) expect(JSON.parse(raw)).toEqual(parsed[key])
      }),
      { numRuns: 300 }
    )
  })
})

describe("isNumberText", () => {
  it("tells JSON numbers from other values", () => {
    for (const text of ["0", "10.5", "-1", "1e2"]) expect(isNumberText(text)).toBe(true)
    for (const text of ['"10.5"', "true", "null", "[1]", "{}"]) expect(isNumberText(text)).toBe(false)
  })
})
