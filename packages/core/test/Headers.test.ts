import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  CallbackHeaders,
  type CallbackHeadersResult,
  get,
  isAppKey,
  type HeaderError,
  type HeaderSource,
  parseCallback,
  parseRequest,
  RequestHeaders,
  type RequestHeadersResult
} from "../src/Headers.js"

// The Fetch API's Headers class (global in Node 20); not in lib ES2022, so declared minimally here.
declare const Headers: new (
  init?: ReadonlyArray<readonly [string, string]> | Record<string, string>
) => {
  get(name: string): string | null
  append(name: string, value: string): void
}
// Independent of src/Base64.ts: the platform's own Base64 encoder (global in Node 20).
declare const btoa: (binary: string) => string

const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))

const APP_KEY = "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4"
const TS = "1763712000000"
const KV = "2"
// "hello world" in standard Base64.
const SIG = "aGVsbG8gd29ybGQ="
const SIG_BYTES = [104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100]

const validRequest = (): Record<string, string> => ({
  "X-R-AK": APP_KEY,
  "X-R-TS": TS,
  "X-R-KEY-VERSION": KV,
  "X-R-Signature": SIG
})

const validCallback = (): Record<string, string> => ({
  "X-R-Ts": TS,
  "X-R-Key-Version": KV,
  "X-R-Signature": SIG
})

const requestError = (result: RequestHeadersResult): HeaderError => {
  if (result.ok) throw new Error(`expected a refused header, got ${JSON.stringify(result.headers)}`)
  expect(result.error._tag).toBe("HeaderError")
  return result.error
}

const callbackError = (result: CallbackHeadersResult): HeaderError => {
  if (result.ok) throw new Error(`expected a refused header, got ${JSON.stringify(result.headers)}`)
  expect(result.error._tag).toBe("HeaderError")
  return result.error
}

const requestRefusal = (source: HeaderSource, signature: "required" | "optional" = "required") => {
  const e = requestError(parseRequest(source, { signature }))
  return { header: e.header, reason: e.reason }
}

const callbackRefusal = (source: HeaderSource) => {
  const e = callbackError(parseCallback(source))
  return { header: e.header, reason: e.reason }
}

/** A record with one header's value replaced (or removed when `value` is undefined). */
const withHeader = (base: Record<string, string>, name: string, value: string | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(base)) if (k.toLowerCase() !== name.toLowerCase()) out[k] = v
  if (value !== undefined) out[name] = value
  return out
}

describe("header names", () => {
  it("spells the request and callback headers as the spec does (5.2, 5.5)", () => {
    expect(RequestHeaders).toEqual({
      appKey: "X-R-AK",
      timestamp: "X-R-TS",
      keyVersion: "X-R-KEY-VERSION",
      signature: "X-R-Signature"
    })
    expect(CallbackHeaders).toEqual({ timestamp: "X-R-Ts", keyVersion: "X-R-Key-Version", signature: "X-R-Signature" })
  })
})

describe("get", () => {
  it("reads a header from a record ignoring case", () => {
    expect(get({ "x-r-ak": APP_KEY }, "X-R-AK")).toBe(APP_KEY)
    expect(get({ "X-r-Ak": APP_KEY }, "x-r-ak")).toBe(APP_KEY)
    expect(get({ "x-r-ak": [APP_KEY] }, "X-R-AK")).toBe(APP_KEY)
  })

  it("reads a header from a Fetch Headers object", () => {
    expect(get(new Headers({ "X-R-AK": APP_KEY }), "x-r-ak")).toBe(APP_KEY)
    expect(get(new Headers(), "x-r-ak")).toBeUndefined()
  })

  it("gives undefined for an absent header, a header sent twice, and a header whose name only shares a prefix", () => {
    expect(get({}, "X-R-AK")).toBeUndefined()
    expect(get({ "x-r-ak": [APP_KEY, APP_KEY] }, "X-R-AK")).toBeUndefined()
    expect(get({ "x-r-ak": APP_KEY, "X-R-AK": APP_KEY }, "X-R-AK")).toBeUndefined()
    expect(get({ "x-r-ak-extra": APP_KEY, "x-r-a": APP_KEY }, "X-R-AK")).toBeUndefined()
  })
})

describe("parseRequest: accepted headers", () => {
  it("parses canonical spelling into typed values", () => {
    const result = parseRequest(validRequest(), { signature: "required" })
    if (!result.ok) throw new Error(result.error.message)
    expect(result.headers.appKey).toBe(APP_KEY)
    expect(result.headers.timestamp).toBe(1763712000000)
    expect(result.headers.keyVersion).toBe(2)
    expect(Array.from(result.headers.signature!)).toEqual(SIG_BYTES)
  })

  it.each([
    ["lower case", { "x-r-ak": APP_KEY, "x-r-ts": TS, "x-r-key-version": KV, "x-r-signature": SIG }],
    ["upper case", { "X-R-AK": APP_KEY, "X-R-TS": TS, "X-R-KEY-VERSION": KV, "X-R-SIGNATURE": SIG }],
    ["mixed case", { "X-r-Ak": APP_KEY, "x-R-tS": TS, "X-r-KeY-vErSiOn": KV, "x-R-sIgNaTuRe": SIG }]
  ])("parses a plain record in %s", (_, record) => {
    const result = parseRequest(record, { signature: "required" })
    expect(result.ok).toBe(true)
    if (result.ok) {
      expect(result.headers.appKey).toBe(APP_KEY)
      expect(result.headers.timestamp).toBe(1763712000000)
      expect(result.headers.keyVersion).toBe(2)
      expect(Array.from(result.headers.signature!)).toEqual(SIG_BYTES)
    }
  })

  it("parses a Fetch Headers object", () => {
    const headers = new Headers([
      ["x-r-ak", APP_KEY],
      ["X-R-TS", TS],
      ["X-r-Key-Version", KV],
      ["x-r-signature", SIG]
    ])
    const result = parseRequest(headers, { signature: "required" })
    if (!result.ok) throw new Error(result.error.message)
    expect(result.headers).toEqual({
      appKey: APP_KEY,
      timestamp: 1763712000000,
      keyVersion: 2,
      signature: new Uint8Array(SIG_BYTES)
    })
  })

  it("accepts a one-element array in a record (Node's IncomingHttpHeaders shape)", () => {
    const result = parseRequest(
      { "x-r-ak": [APP_KEY], "x-r-ts": [TS], "x-r-key-version": [KV], "x-r-signature": [SIG] },
      { signature: "required" }
    )
    expect(result.ok).toBe(true)
  })

  it("accepts upper-case hex in the appKey UUID", () => {
    const result = parseRequest(withHeader(validRequest(), "X-R-AK", APP_KEY.toUpperCase()), { signature: "required" })
    expect(result.ok && result.headers.appKey).toBe(APP_KEY.toUpperCase())
  })

  it("ignores undefined values in a record and unrelated headers", () => {
    const record: Record<string, string | undefined> = {
      ...validRequest(),
      "x-r-ak": undefined,
      "content-type": "application/json",
      "x-merchant-ak": "not-a-uuid"
    }
    // "X-R-AK" (defined) and "x-r-ak" (undefined) differ only in case: the undefined one does not count.
    expect(parseRequest(record, { signature: "required" }).ok).toBe(true)
  })

  it("decodes the signature to exactly the bytes whose Base64 was sent", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 600 }), (bytes) => {
        const result = parseRequest(withHeader(validRequest(), "X-R-Signature", toBase64(bytes)), {
          signature: "required"
        })
        if (!result.ok) return false
        expect(Array.from(result.headers.signature!)).toEqual(Array.from(bytes))
        const callback = parseCallback(withHeader(validCallback(), "X-R-Signature", toBase64(bytes)))
        if (!callback.ok) return false
        expect(Array.from(callback.headers.signature)).toEqual(Array.from(bytes))
        return true
      })
    )
  })
})

describe("parseRequest: signature required or optional", () => {
  it("refuses a missing signature when required", () => {
    expect(requestRefusal(withHeader(validRequest(), "X-R-Signature", undefined))).toEqual({
      header: "X-R-Signature",
      reason: "Missing"
    })
  })

  it("accepts a missing signature when optional, with signature undefined", () => {
    const result = parseRequest(withHeader(validRequest(), "X-R-Signature", undefined), { signature: "optional" })
    if (!result.ok) throw new Error(result.error.message)
    expect(result.headers.signature).toBeUndefined()
    expect(result.headers.appKey).toBe(APP_KEY)
  })

  it("treats an empty signature as missing: refused when required, absent when optional", () => {
    const empty = withHeader(validRequest(), "X-R-Signature", "")
    expect(requestRefusal(empty, "required")).toEqual({ header: "X-R-Signature", reason: "Missing" })
    const optional = parseRequest(empty, { signature: "optional" })
    expect(optional.ok && optional.headers.signature).toBeUndefined()
    const fetchEmpty = parseRequest(new Headers({ ...validRequest(), "X-R-Signature": "" }), { signature: "optional" })
    expect(fetchEmpty.ok && fetchEmpty.headers.signature).toBeUndefined()
  })

  it("still refuses a malformed or duplicated signature when it is optional", () => {
    expect(requestRefusal(withHeader(validRequest(), "X-R-Signature", "aGVsbG8%3D"), "optional")).toEqual({
      header: "X-R-Signature",
      reason: "Malformed"
    })
    expect(requestRefusal({ ...validRequest(), "x-r-signature": SIG }, "optional")).toEqual({
      header: "X-R-Signature",
      reason: "Duplicate"
    })
  })

  it("still requires the other headers when the signature is optional", () => {
    expect(requestRefusal(withHeader(validRequest(), "X-R-KEY-VERSION", undefined), "optional")).toEqual({
      header: "X-R-KEY-VERSION",
      reason: "Missing"
    })
  })
})

describe("parseRequest: Missing", () => {
  it.each(["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"])("refuses a request without %s", (name) => {
    const e = requestError(parseRequest(withHeader(validRequest(), name, undefined), { signature: "required" }))
    expect(e.header).toBe(name)
    expect(e.reason).toBe("Missing")
    expect(e.message).toContain(name)
    expect(e.base64).toBeUndefined()
  })

  it.each(["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"])("treats an empty %s as missing", (name) => {
    expect(requestRefusal(withHeader(validRequest(), name, ""))).toEqual({ header: name, reason: "Missing" })
    expect(requestRefusal(new Headers(withHeader(validRequest(), name, "")))).toEqual({
      header: name,
      reason: "Missing"
    })
  })

  it("treats an empty array in a record as missing", () => {
    expect(requestRefusal({ ...withHeader(validRequest(), "X-R-TS", undefined), "x-r-ts": [] })).toEqual({
      header: "X-R-TS",
      reason: "Missing"
    })
  })

  it("refuses an empty record and an empty Fetch Headers at X-R-AK", () => {
    expect(requestRefusal({})).toEqual({ header: "X-R-AK", reason: "Missing" })
    expect(requestRefusal(new Headers())).toEqual({ header: "X-R-AK", reason: "Missing" })
  })

  it("does not take the former X-Merchant-Ak header as the appKey", () => {
    const record = { ...withHeader(validRequest(), "X-R-AK", undefined), "X-Merchant-Ak": APP_KEY }
    expect(requestRefusal(record)).toEqual({ header: "X-R-AK", reason: "Missing" })
  })
})

describe("parseRequest: Duplicate", () => {
  it.each(["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"])(
    "refuses %s given as an array of two values in a record, even two equal ones",
    (name) => {
      const value = validRequest()[name]!
      const record = { ...withHeader(validRequest(), name, undefined), [name.toLowerCase()]: [value, value] }
      const e = requestError(parseRequest(record, { signature: "required" }))
      expect(e.header).toBe(name)
      expect(e.reason).toBe("Duplicate")
      expect(e.message).toContain(name)
    }
  )

  it.each(["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"])(
    "refuses %s given under two keys that differ only in case",
    (name) => {
      const value = validRequest()[name]!
      const record = { ...validRequest(), [name.toLowerCase()]: value }
      expect(Object.keys(record)).toHaveLength(5)
      expect(requestRefusal(record)).toEqual({ header: name, reason: "Duplicate" })
    }
  )

  it("refuses a duplicate even when one of the two spellings is empty", () => {
    expect(requestRefusal({ ...validRequest(), "x-r-ts": "" })).toEqual({ header: "X-R-TS", reason: "Duplicate" })
  })

  it("refuses a header a Fetch Headers object joined from two values as a duplicate (none of them can hold a comma)", () => {
    for (const name of ["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"]) {
      const headers = new Headers(validRequest())
      headers.append(name, validRequest()[name]!)
      expect(requestRefusal(headers)).toEqual({ header: name, reason: "Duplicate" })
    }
  })
})

describe("parseRequest: Malformed", () => {
  it.each([
    "not-a-uuid",
    "78e6ac0ee0bc458abd0b3fcbd6ace6b4",
    "{78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4}",
    "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b",
    "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4 ",
    " 78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4",
    "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6bg",
    "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4\n"
  ])("refuses the appKey %j", (appKey) => {
    const e = requestError(parseRequest(withHeader(validRequest(), "X-R-AK", appKey), { signature: "required" }))
    expect(e).toMatchObject({ header: "X-R-AK", reason: "Malformed" })
    expect(e.message).toMatch(/^malformed header X-R-AK/)
    expect(e.message).toContain("UUID")
  })

  it.each([
    "1.5e12",
    "-1",
    "017",
    "abc",
    "1763712000000.0",
    " 1763712000000",
    "1763712000000 ",
    "+1763712000000",
    "0x1F"
  ])("refuses the timestamp %j", (ts) => {
    const e = requestError(parseRequest(withHeader(validRequest(), "X-R-TS", ts), { signature: "required" }))
    expect(e).toMatchObject({ header: "X-R-TS", reason: "Malformed" })
    expect(e.message).toContain("X-R-TS")
  })

  it("accepts a timestamp in seconds here (the window check catches it, not the parser)", () => {
    const result = parseRequest(withHeader(validRequest(), "X-R-TS", "1763712000"), { signature: "required" })
    expect(result.ok && result.headers.timestamp).toBe(1763712000)
  })

  it.each(["0", "01", "v1", "1.0", "-1", " 1", "1 ", "+1", "1e0", "one"])("refuses the key version %j", (kv) => {
    const e = requestError(parseRequest(withHeader(validRequest(), "X-R-KEY-VERSION", kv), { signature: "required" }))
    expect(e).toMatchObject({ header: "X-R-KEY-VERSION", reason: "Malformed" })
    expect(e.message).toContain("natural number")
  })

  it.each([
    ["aGVsbG8gd29ybGQ%3D", "PercentEncoded"],
    ["aGVsbG8%2Bd29y%2FbGQ%3D", "PercentEncoded"],
    ["a-b_aGVsbG8gd29ybGQ", "UrlSafeAlphabet"],
    ["aGVsbG8gd29ybGQ", "BadLength"],
    ["aGVsbG8g d29ybGQ=", "Whitespace"],
    ["aGVsbG8gd29ybGQ=\n", "Whitespace"],
    ["aGVs\tbG8gd29ybGQ=", "Whitespace"],
    ["aGVsbG8gd29ybGR=", "BadPadding"],
    ["aGVs*G8gd29ybGQ=", "InvalidCharacter"]
  ] as const)("refuses the signature %j as %s", (signature, base64) => {
    const e = requestError(
      parseRequest(withHeader(validRequest(), "X-R-Signature", signature), { signature: "required" })
    )
    expect(e).toMatchObject({ header: "X-R-Signature", reason: "Malformed", base64 })
    expect(e.message).toMatch(/^malformed header X-R-Signature: /)
  })

  it("names URL encoding in the message of a percent-encoded signature", () => {
    const e = requestError(
      parseRequest(withHeader(validRequest(), "X-R-Signature", "aGVsbG8gd29ybGQ%3D"), { signature: "required" })
    )
    expect(e.message.toLowerCase()).toContain("url-encode")
  })

  it("refuses inner whitespace in a signature read from Fetch Headers", () => {
    const headers = new Headers({ ...validRequest(), "X-R-Signature": "aGVsbG8g d29ybGQ=" })
    const e = requestError(parseRequest(headers, { signature: "required" }))
    expect(e).toMatchObject({ header: "X-R-Signature", reason: "Malformed", base64: "Whitespace" })
  })
})

describe("parseRequest: the first refused header wins, in the order X-R-AK, X-R-TS, X-R-KEY-VERSION, X-R-Signature", () => {
  it("reports X-R-AK when everything is wrong", () => {
    expect(requestRefusal({ "X-R-TS": "abc", "X-R-KEY-VERSION": "0", "X-R-Signature": "%3D" })).toEqual({
      header: "X-R-AK",
      reason: "Missing"
    })
    expect(requestRefusal({ "X-R-AK": "nope", "X-R-KEY-VERSION": "0", "X-R-Signature": "%3D" })).toEqual({
      header: "X-R-AK",
      reason: "Malformed"
    })
  })

  it("reports X-R-TS before the key version and signature", () => {
    expect(requestRefusal({ "X-R-AK": APP_KEY, "X-R-KEY-VERSION": "0", "X-R-Signature": "%3D" })).toEqual({
      header: "X-R-TS",
      reason: "Missing"
    })
    expect(requestRefusal({ "X-R-AK": APP_KEY, "X-R-TS": "-1" })).toEqual({ header: "X-R-TS", reason: "Malformed" })
  })

  it("reports X-R-KEY-VERSION before the signature", () => {
    expect(requestRefusal({ "X-R-AK": APP_KEY, "X-R-TS": TS, "X-R-Signature": "%3D" })).toEqual({
      header: "X-R-KEY-VERSION",
      reason: "Missing"
    })
    expect(requestRefusal({ "X-R-AK": APP_KEY, "X-R-TS": TS, "X-R-KEY-VERSION": "v1" })).toEqual({
      header: "X-R-KEY-VERSION",
      reason: "Malformed"
    })
  })

  it("reports a duplicate in an earlier header before a malformed later one", () => {
    const record = { "x-r-ak": [APP_KEY, APP_KEY], "X-R-TS": "abc", "X-R-KEY-VERSION": "0" }
    expect(requestRefusal(record)).toEqual({ header: "X-R-AK", reason: "Duplicate" })
  })

  it("for any set of broken headers, reports the first one in the order", () => {
    const order = ["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"] as const
    const broken = {
      Missing: undefined,
      Empty: "",
      Malformed: { "X-R-AK": "x", "X-R-TS": "1.5", "X-R-KEY-VERSION": "01", "X-R-Signature": "a_b-" }
    }
    const kind = fc.constantFrom("ok", "Missing", "Empty", "Malformed", "Duplicate")
    fc.assert(
      fc.property(fc.tuple(kind, kind, kind, kind), (kinds) => {
        const record: Record<string, string | Array<string>> = {}
        kinds.forEach((k, i) => {
          const name = order[i]!
          const good = validRequest()[name]!
          if (k === "ok") record[name] = good
          else if (k === "Empty") record[name] = broken.Empty
          else if (k === "Malformed") record[name] = broken.Malformed[name]
          else if (k === "Duplicate") record[name.toLowerCase()] = [good, good]
        })
        const first = kinds.findIndex((k) => k !== "ok")
        const result = parseRequest(record, { signature: "required" })
        if (first === -1) return result.ok
        const reason = kinds[first] === "Empty" ? "Missing" : kinds[first]
        return !result.ok && result.error.header === order[first] && result.error.reason === reason
      })
    )
  })
})

describe("parseCallback", () => {
  it("parses the canonical callback headers", () => {
    const result = parseCallback(validCallback())
    if (!result.ok) throw new Error(result.error.message)
    expect(result.headers.timestamp).toBe(1763712000000)
    expect(result.headers.keyVersion).toBe(2)
    expect(Array.from(result.headers.signature)).toEqual(SIG_BYTES)
  })

  it.each([
    ["lower case", { "x-r-ts": TS, "x-r-key-version": KV, "x-r-signature": SIG }],
    ["upper case", { "X-R-TS": TS, "X-R-KEY-VERSION": KV, "X-R-SIGNATURE": SIG }],
    ["mixed case", { "x-R-tS": TS, "X-r-kEy-VeRsIoN": KV, "X-r-SiGnAtUrE": SIG }]
  ])("parses a plain record in %s", (_, record) => {
    const result = parseCallback(record)
    expect(result.ok && result.headers.timestamp).toBe(1763712000000)
    expect(result.ok && result.headers.keyVersion).toBe(2)
  })

  it("parses a Fetch Headers object", () => {
    const result = parseCallback(new Headers({ "x-r-ts": TS, "X-R-KEY-VERSION": KV, "x-r-signature": SIG }))
    if (!result.ok) throw new Error(result.error.message)
    expect(result.headers).toEqual({ timestamp: 1763712000000, keyVersion: 2, signature: new Uint8Array(SIG_BYTES) })
  })

  it("needs no X-R-AK", () => {
    expect(parseCallback(validCallback()).ok).toBe(true)
  })

  it.each(["X-R-Ts", "X-R-Key-Version", "X-R-Signature"])(
    "refuses a callback without %s (all are required)",
    (name) => {
      expect(callbackRefusal(withHeader(validCallback(), name, undefined))).toEqual({ header: name, reason: "Missing" })
      expect(callbackRefusal(withHeader(validCallback(), name, ""))).toEqual({ header: name, reason: "Missing" })
    }
  )

  it.each(["X-R-Ts", "X-R-Key-Version", "X-R-Signature"])("refuses a duplicated %s", (name) => {
    const value = validCallback()[name]!
    expect(callbackRefusal({ ...withHeader(validCallback(), name, undefined), [name]: [value, value] })).toEqual({
      header: name,
      reason: "Duplicate"
    })
    expect(callbackRefusal({ ...validCallback(), [name.toUpperCase()]: value })).toEqual({
      header: name,
      reason: "Duplicate"
    })
  })

  it.each(["1.5e12", "-1", "017", "abc", ""])("refuses the timestamp %j", (ts) => {
    const e = callbackError(parseCallback(withHeader(validCallback(), "x-r-ts", ts)))
    expect(e.header).toBe("X-R-Ts")
    expect(e.reason).toBe(ts === "" ? "Missing" : "Malformed")
  })

  it.each(["0", "01", "v1", "1.0"])("refuses the key version %j", (kv) => {
    expect(callbackRefusal(withHeader(validCallback(), "x-r-key-version", kv))).toEqual({
      header: "X-R-Key-Version",
      reason: "Malformed"
    })
  })

  it.each([
    ["aGVsbG8gd29ybGQ%3D", "PercentEncoded"],
    ["aGVsbG8gd29ybGQ_", "UrlSafeAlphabet"],
    ["aGVsbG8g d29ybGQ=", "Whitespace"]
  ] as const)("refuses the signature %j as %s", (signature, base64) => {
    const e = callbackError(parseCallback(withHeader(validCallback(), "x-r-signature", signature)))
    expect(e).toMatchObject({ header: "X-R-Signature", reason: "Malformed", base64 })
  })

  it("reports the first refused header in the order X-R-Ts, X-R-Key-Version, X-R-Signature", () => {
    expect(callbackRefusal({ "X-R-Key-Version": "0", "X-R-Signature": "%3D" })).toEqual({
      header: "X-R-Ts",
      reason: "Missing"
    })
    expect(callbackRefusal({ "X-R-Ts": TS, "X-R-Key-Version": "0" })).toEqual({
      header: "X-R-Key-Version",
      reason: "Malformed"
    })
    expect(callbackRefusal({ "X-R-Ts": TS, "X-R-Key-Version": "1", "X-R-Signature": "%3D" })).toEqual({
      header: "X-R-Signature",
      reason: "Malformed"
    })
  })
})

describe("header names in any casing", () => {
  const randomCasing = (name: string) =>
    fc
      .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
      .map((upper) => Array.from(name, (c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""))

  // Good and bad values alike: the casing of the name must never change the outcome.
  const value = (good: string, bad: string) => fc.constantFrom<string | undefined>(good, bad, "", undefined)

  const recordOf = (entries: ReadonlyArray<readonly [string, string | undefined]>): Record<string, string> => {
    const out: Record<string, string> = {}
    for (const [name, v] of entries) if (v !== undefined) out[name] = v
    return out
  }

  it("parseRequest gives the same result for random casings as for the canonical names", () => {
    const names = ["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"] as const
    const bad = ["zzz", "1.5e12", "01", "aGk%3D"] as const
    fc.assert(
      fc.property(
        fc.tuple(...names.map(randomCasing)),
        fc.tuple(...names.map((n, i) => value(validRequest()[n]!, bad[i]!))),
        fc.constantFrom("required" as const, "optional" as const),
        (casings, values, signature) => {
          const canonical = recordOf(names.map((n, i) => [n, values[i]] as const))
          const cased = recordOf(casings.map((n, i) => [n, values[i]] as const))
          expect(parseRequest(cased, { signature })).toEqual(parseRequest(canonical, { signature }))
        }
      )
    )
  })

  it("parseCallback gives the same result for random casings as for the canonical names", () => {
    const names = ["X-R-Ts", "X-R-Key-Version", "X-R-Signature"] as const
    const bad = ["-1", "v1", "aGk_"] as const
    fc.assert(
      fc.property(
        fc.tuple(...names.map(randomCasing)),
        fc.tuple(...names.map((n, i) => value(validCallback()[n]!, bad[i]!))),
        (casings, values) => {
          const canonical = recordOf(names.map((n, i) => [n, values[i]] as const))
          const cased = recordOf(casings.map((n, i) => [n, values[i]] as const))
          expect(parseCallback(cased)).toEqual(parseCallback(canonical))
        }
      )
    )
  })
})

describe("isAppKey", () => {
  it("accepts UUIDs in either case and nothing else", () => {
    expect(isAppKey("7e57c0de-0000-4000-8000-000000000001")).toBe(true)
    expect(isAppKey("7E57C0DE-0000-4000-8000-000000000001")).toBe(true)
    for (const text of [
      "",
      "7e57c0de00004000800000000000001",
      "7e57c0de-0000-4000-8000-00000000000",
      " 7e57c0de-0000-4000-8000-000000000001",
      "zzzzzzzz-0000-4000-8000-000000000001"
    ]) {
      expect(isAppKey(text)).toBe(false)
    }
  })
})

describe("hostile header sources", () => {
  const valid = {
    "X-R-AK": "7e57c0de-0000-4000-8000-000000000001",
    "X-R-TS": "1763712000000",
    "X-R-KEY-VERSION": "1",
    "X-R-Signature": "aGVsbG8="
  }

  it("never throws, whatever the source holds", () => {
    fc.assert(
      fc.property(fc.anything(), (source) => {
        parseRequest(source as HeaderSource, { signature: "required" })
        parseCallback(source as HeaderSource)
        get(source as HeaderSource, "X-R-AK")
      }),
      { numRuns: 2000 }
    )
    const throwing = {
      get: () => {
        throw new Error("boom")
      }
    }
    expect(parseRequest(throwing, { signature: "required" })).toMatchObject({ ok: false, error: { reason: "Missing" } })
    expect(parseRequest({ "x-r-ak": null } as unknown as HeaderSource, { signature: "required" }).ok).toBe(false)
  })

  it("reads own keys only: a polluted prototype cannot inject a header", () => {
    const polluted = Object.create({ "x-r-signature": "aGVsbG8=" }) as Record<string, string>
    Object.assign(polluted, { ...valid, "X-R-Signature": undefined })
    const result = parseRequest(polluted, { signature: "required" })
    expect(result).toMatchObject({ ok: false, error: { header: "X-R-Signature", reason: "Missing" } })
  })

  it("a value that is not text is malformed", () => {
    const result = parseRequest({ ...valid, "X-R-TS": 1763712000000 } as unknown as HeaderSource, {
      signature: "required"
    })
    expect(result).toMatchObject({ ok: false, error: { header: "X-R-TS", reason: "Malformed" } })
  })

  it("a Fetch-joined repeated header is a duplicate, not a Base64 mistake", () => {
    const joined = {
      get: (name: string) =>
        name.toLowerCase() === "x-r-signature" ? "aGVsbG8=, aGVsbG8=" : valid[name as keyof typeof valid]
    }
    expect(parseRequest(joined, { signature: "required" })).toMatchObject({
      ok: false,
      error: { header: "X-R-Signature", reason: "Duplicate" }
    })
  })

  it("a Map is read case-insensitively like a record", () => {
    const map = new Map(Object.entries(valid).map(([k, v]) => [k.toLowerCase(), v]))
    expect(parseRequest(map, { signature: "required" }).ok).toBe(true)
  })
})
