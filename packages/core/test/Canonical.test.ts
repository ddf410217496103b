import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { callbackBytesToSign, callbackStringToSign, requestBytesToSign, requestStringToSign } from "../src/Canonical.js"
import { utf8Encode, utf8Length, utf8Write } from "../src/internal/utf8.js"

// Global in Node 20 and browsers; not in lib ES2022, so declared minimally here.
declare const TextEncoder: { new (): { encode(s: string): Uint8Array } }

const encoder = new TextEncoder()
const utf8 = (s: string): Array<number> => Array.from(encoder.encode(s))

const APP_KEY = "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4"
const BODY = '{"orderId":"M-1001","amount":"10.00","currency":"USD"}'

describe("requestStringToSign (spec 5.3)", () => {
  it("builds METHOD SP path LF appKey.timestamp.body, as in the spec", () => {
    expect(
      requestStringToSign({
        method: "POST",
        path: "/openapi/v2/order/create",
        appKey: APP_KEY,
        timestamp: 1763712000000,
        body: BODY
      })
    ).toBe(`POST /openapi/v2/order/create\n${APP_KEY}.1763712000000.${BODY}`)
  })

  it("gives the same string for the timestamp as a number or as its text", () => {
    const base = { method: "POST", path: "/openapi/v2/order/create", appKey: APP_KEY, body: BODY }
    expect(requestStringToSign({ ...base, timestamp: 1763712000000 })).toBe(
      requestStringToSign({ ...base, timestamp: "1763712000000" })
    )
  })

  it("keeps the timestamp text exactly as sent", () => {
    const s = requestStringToSign({ method: "POST", path: "/p", appKey: "k", timestamp: "0001", body: "" })
    expect(s).toBe("POST /p\nk.0001.")
  })

  it("ends with the trailing dot for an empty body", () => {
    const s = requestStringToSign({
      method: "POST",
      path: "/openapi/v2/order/create",
      appKey: APP_KEY,
      timestamp: 1,
      body: ""
    })
    expect(s).toBe(`POST /openapi/v2/order/create\n${APP_KEY}.1.`)
    expect(s.endsWith(".")).toBe(true)
  })

  it("keeps a lower-case method as is (a verifier must not fix it)", () => {
    const lower = requestStringToSign({
      method: "post",
      path: "/openapi/v2/order/create",
      appKey: APP_KEY,
      timestamp: 1,
      body: "{}"
    })
    expect(lower).toBe(`post /openapi/v2/order/create\n${APP_KEY}.1.{}`)
    expect(lower).not.toBe(
      requestStringToSign({
        method: "POST",
        path: "/openapi/v2/order/create",
        appKey: APP_KEY,
        timestamp: 1,
        body: "{}"
      })
    )
  })

  it("keeps the body byte for byte: spaces, line breaks and field order all matter", () => {
    const at = (body: string) =>
      requestStringToSign({ method: "POST", path: "/openapi/v2/order/create", appKey: APP_KEY, timestamp: 1, body })
    const compact = at('{"a":1,"b":2}')
    expect(at('{"a": 1,"b":2}')).not.toBe(compact)
    expect(at('{"b":2,"a":1}')).not.toBe(compact)
    expect(at('{"a":1,"b":2}\n')).not.toBe(compact)
    expect(at("line1\nline2")).toBe(`POST /openapi/v2/order/create\n${APP_KEY}.1.line1\nline2`)
  })

  it("uses a single space and a single line feed (no CR, no extra space)", () => {
    const s = requestStringToSign({ method: "POST", path: "/x", appKey: "k", timestamp: 5, body: "b" })
    expect(s.indexOf(" ")).toBe(4)
    expect(s.split(" ")).toHaveLength(2)
    expect(s.split("\n")).toEqual(["POST /x", "k.5.b"])
    expect(s).not.toContain("\r")
  })

  it("property: the string splits back into its parts", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("POST", "GET", "PUT", "post"),
        fc.stringMatching(/^\/[a-z0-9/]{0,30}$/),
        fc.uuid(),
        fc.maxSafeNat(),
        fc.string({ unit: "grapheme" }),
        (method, path, appKey, timestamp, body) => {
          const s = requestStringToSign({ method, path, appKey, timestamp, body })
          const lf = s.indexOf("\n")
          expect(s.slice(0, lf)).toBe(`${method} ${path}`)
          expect(s.slice(lf + 1)).toBe(`${appKey}.${timestamp}.${body}`)
        }
      )
    )
  })
})

describe("callbackStringToSign (spec 5.5)", () => {
  it("builds appKey.timestamp.body with no method and no path", () => {
    expect(callbackStringToSign({ appKey: APP_KEY, timestamp: 1763712005000, body: "{}" })).toBe(
      `${APP_KEY}.1763712005000.{}`
    )
  })

  it("keeps an empty body and a timestamp given as text", () => {
    expect(callbackStringToSign({ appKey: "k", timestamp: "1763712005000", body: "" })).toBe("k.1763712005000.")
  })

  it("is the request string without its first line", () => {
    const parts = { appKey: APP_KEY, timestamp: 1763712000000, body: BODY }
    const request = requestStringToSign({ method: "POST", path: "/openapi/v2/order/create", ...parts })
    expect(request).toBe(`POST /openapi/v2/order/create\n${callbackStringToSign(parts)}`)
  })
})

describe("callbackBytesToSign", () => {
  it("is the UTF-8 of the callback string for an ASCII body", () => {
    const body = '{"eventId":"e1","eventType":"order.paid"}'
    expect(Array.from(callbackBytesToSign(APP_KEY, 1763712005000, encoder.encode(body)))).toEqual(
      utf8(`${APP_KEY}.1763712005000.${body}`)
    )
  })

  it("works with the timestamp as text or as a number", () => {
    const body = encoder.encode("{}")
    expect(Array.from(callbackBytesToSign("k", "42", body))).toEqual(Array.from(callbackBytesToSign("k", 42, body)))
    expect(Array.from(callbackBytesToSign("k", 42, body))).toEqual(utf8("k.42.{}"))
  })

  it("gives just the prefix for an empty body", () => {
    expect(Array.from(callbackBytesToSign("k", 1, new Uint8Array(0)))).toEqual(utf8("k.1."))
  })

  it("keeps non-UTF-8 body bytes (0xff 0xfe) untouched at the end", () => {
    const body = new Uint8Array([0x7b, 0xff, 0xfe, 0x80, 0xc0, 0x7d])
    const out = callbackBytesToSign(APP_KEY, 1763712005000, body)
    const prefix = utf8(`${APP_KEY}.1763712005000.`)
    expect(out.length).toBe(prefix.length + body.length)
    expect(Array.from(out.subarray(0, prefix.length))).toEqual(prefix)
    expect(Array.from(out.subarray(prefix.length))).toEqual([0x7b, 0xff, 0xfe, 0x80, 0xc0, 0x7d])
  })

  it("does not change or keep a reference to the body it is given", () => {
    const body = new Uint8Array([1, 2, 3])
    const out = callbackBytesToSign("k", 1, body)
    out[out.length - 1] = 99
    expect(Array.from(body)).toEqual([1, 2, 3])
  })

  it("encodes a non-ASCII appKey prefix as UTF-8", () => {
    expect(Array.from(callbackBytesToSign("ключ", 1, encoder.encode("é")))).toEqual(utf8("ключ.1.é"))
  })

  it("property: equals TextEncoder of callbackStringToSign for random Unicode bodies", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.maxSafeNat(), fc.string({ unit: "grapheme" }), (appKey, timestamp, body) => {
        const bytes = callbackBytesToSign(appKey, timestamp, encoder.encode(body))
        expect(Array.from(bytes)).toEqual(utf8(callbackStringToSign({ appKey, timestamp, body })))
      })
    )
  })

  it("property: keeps arbitrary body bytes verbatim after the prefix", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 10 }), fc.uint8Array({ maxLength: 200 }), (appKey, body) => {
        const out = callbackBytesToSign(appKey, 7, body)
        const prefix = utf8(`${appKey}.7.`)
        expect(Array.from(out.subarray(0, prefix.length))).toEqual(prefix)
        expect(Array.from(out.subarray(prefix.length))).toEqual(Array.from(body))
      })
    )
  })
})

describe("internal utf8", () => {
  it.each([
    ["ASCII", "abc"],
    ["2-byte", "é"],
    ["3-byte", "订"],
    ["4-byte pair", "😀"],
    ["U+0000", "\u0000"],
    ["U+007F / U+0080", "\u007f\u0080"],
    ["U+07FF / U+0800", "\u07ff\u0800"],
    ["U+FFFF", "\uffff"],
    ["lone high surrogate", "a\ud800b"],
    ["lone high surrogate at the end", "a\ud83d"],
    ["lone low surrogate", "\udc00"],
    ["reversed pair", "\ude00\ud83d"],
    ["high, high, low", "\ud83d\ud83d\ude00"],
    ["U+10FFFF", "\udbff\udfff"]
  ])("utf8Encode matches TextEncoder for %s", (_, s) => {
    expect(Array.from(utf8Encode(s))).toEqual(utf8(s))
    expect(utf8Length(s)).toBe(encoder.encode(s).length)
  })

  it("property: utf8Encode equals TextEncoder for random strings, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        expect(Array.from(utf8Encode(s))).toEqual(utf8(s))
        expect(utf8Length(s)).toBe(encoder.encode(s).length)
      })
    )
  })

  it("property: same for strings of raw UTF-16 code units (many lone surrogates)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0xffff })), {
          maxLength: 40
        }),
        (units) => {
          const s = String.fromCharCode(...units)
          expect(Array.from(utf8Encode(s))).toEqual(utf8(s))
        }
      )
    )
  })

  it("utf8Write writes at an offset and returns the offset after the last byte", () => {
    const out = new Uint8Array(10).fill(0xaa)
    const end = utf8Write("é😀", out, 2)
    expect(end).toBe(2 + 2 + 4)
    expect(Array.from(out)).toEqual([0xaa, 0xaa, ...utf8("é😀"), 0xaa, 0xaa])
  })
})

describe("requestBytesToSign", () => {
  it("is the UTF-8 of the request string to sign, with the body bytes untouched", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 100 }), fc.nat(), (body, ts) => {
        const bytes = requestBytesToSign("POST", "/openapi/v2/order/create", "a-ü", ts, utf8Encode(body))
        expect(bytes).toEqual(
          utf8Encode(
            requestStringToSign({
              method: "POST",
              path: "/openapi/v2/order/create",
              appKey: "a-ü",
              timestamp: ts,
              body
            })
          )
        )
      })
    )
    const raw = new Uint8Array([0xff, 0xfe])
    expect(Array.from(requestBytesToSign("POST", "/p", "k", 1, raw).slice(-2))).toEqual([0xff, 0xfe])
  })
})
