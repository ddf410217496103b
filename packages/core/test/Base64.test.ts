import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Base64 from "../src/Base64.js"

const reasonOf = (text: string) => {
  const result = Base64.decode(text)
  return result.ok ? "ok" : result.error.reason
}

describe("Base64", () => {
  it("encodes the RFC 4648 test vectors", () => {
    const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0))
    const cases: Array<[string, string]> = [
      ["", ""],
      ["f", "Zg=="],
      ["fo", "Zm8="],
      ["foo", "Zm9v"],
      ["foob", "Zm9vYg=="],
      ["fooba", "Zm9vYmE="],
      ["foobar", "Zm9vYmFy"]
    ]
    for (const [plain, encoded] of cases) {
      expect(Base64.encode(ascii(plain))).toBe(encoded)
      if (encoded !== "") expect(Base64.decode(encoded)).toEqual({ ok: true, bytes: ascii(plain) })
    }
  })

  it("uses + and / for 62 and 63", () => {
    expect(Base64.encode(new Uint8Array([0xfb, 0xff]))).toBe("+/8=")
  })

  it("refuses each common mistake with its own reason", () => {
    expect(reasonOf("")).toBe("Empty")
    expect(reasonOf("Zm9v\nYmFy")).toBe("Whitespace")
    expect(reasonOf(" Zm9v")).toBe("Whitespace")
    expect(reasonOf("Zm8%3D")).toBe("PercentEncoded")
    expect(reasonOf("%2B%2F8%3D")).toBe("PercentEncoded")
    expect(reasonOf("-_8=")).toBe("UrlSafeAlphabet")
    expect(reasonOf("Zm9v*A==")).toBe("InvalidCharacter")
    expect(reasonOf("Zm9vé===")).toBe("InvalidCharacter")
    expect(reasonOf("Zm9")).toBe("BadLength")
    expect(reasonOf("Zg")).toBe("BadLength")
    expect(reasonOf("Zg=")).toBe("BadLength")
    expect(reasonOf("Z===")).toBe("BadPadding")
    expect(reasonOf("Zg=a")).toBe("BadPadding")
    expect(reasonOf("=Zg=")).toBe("BadPadding")
    // Non-zero bits before the padding: a second spelling of the same bytes.
    expect(reasonOf("Zh==")).toBe("BadPadding")
    expect(reasonOf("Zm9=")).toBe("BadPadding")
  })

  it("messages name the usual mistake", () => {
    const result = Base64.decode("abc%2Bdef")
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.message).toMatch(/URL-encode/)
  })

  it("decode(encode(x)) == x for any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const text = Base64.encode(bytes)
        if (bytes.length === 0) expect(text).toBe("")
        else expect(Base64.decode(text)).toEqual({ ok: true, bytes })
      }),
      { numRuns: 2000 }
    )
  })

  it("every string it accepts is the one canonical encoding of its bytes", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="),
          maxLength: 24
        }),
        (text) => {
          const result = Base64.decode(text)
          if (result.ok) expect(Base64.encode(result.bytes)).toBe(text)
        }
      ),
      { numRuns: 5000 }
    )
  })

  it("finds the mistake anywhere in a signature-sized text, not only in the first characters", () => {
    const signature = Base64.encode(Uint8Array.from({ length: 256 }, (_, i) => (i * 37) % 256))
    const at = (i: number, c: string) => signature.slice(0, i) + c + signature.slice(i + 1)
    expect(reasonOf(signature)).toBe("ok")
    expect(reasonOf(at(200, "-"))).toBe("UrlSafeAlphabet")
    expect(reasonOf(at(341, "_"))).toBe("UrlSafeAlphabet")
    expect(reasonOf(at(200, " "))).toBe("Whitespace")
    expect(reasonOf(at(200, "="))).toBe("BadPadding")
    expect(reasonOf(at(200, "é"))).toBe("InvalidCharacter")
    expect(reasonOf(`${signature.slice(0, 200)}%2B${signature.slice(203)}`)).toBe("PercentEncoded")
    expect(reasonOf(signature.slice(0, -1))).toBe("BadLength")
  })

  it("accepts exactly the canonical encodings, whatever characters it is given (Node's Buffer as the oracle)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AQgwZm9v+/=-_% \né\u0100"), maxLength: 16 }), (text) => {
        // Buffer decodes leniently; the text is canonical when encoding those bytes gives it back.
        const lenient = Buffer.from(text, "base64")
        const canonical = text !== "" && lenient.toString("base64") === text
        const result = Base64.decode(text)
        expect(result.ok).toBe(canonical)
        if (result.ok) expect(Buffer.from(result.bytes)).toEqual(lenient)
      }),
      { numRuns: 5000 }
    )
  })
})
