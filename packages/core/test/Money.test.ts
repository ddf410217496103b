import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ISO_4217 } from "../src/internal/iso4217.js"
import {
  type AmountErrorReason,
  canonicalAmount,
  formatAmount,
  isCurrencyCode,
  MAX_INTEGER_DIGITS,
  type Money,
  minorUnits,
  parseAmount
} from "../src/Money.js"

const ok = (amount: string | number, currency: string): Money => {
  const result = parseAmount(amount, currency)
  if (!result.ok) throw new Error(`expected ${String(amount)} ${currency} to parse, got ${result.error.message}`)
  return result.money
}

const reasonOf = (amount: string | number, currency: string): AmountErrorReason | "ok" => {
  const result = parseAmount(amount, currency)
  return result.ok ? "ok" : result.error.reason
}

const messageOf = (amount: string | number, currency: string): string => {
  const result = parseAmount(amount, currency)
  if (result.ok) throw new Error(`expected ${String(amount)} ${currency} to be refused`)
  expect(result.error._tag).toBe("AmountError")
  return result.error.message
}

const CODES = Object.keys(ISO_4217)
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/

describe("ISO 4217 table", () => {
  it("holds about 165 active codes, three upper-case letters each, with 0, 2, 3 or 4 minor units", () => {
    expect(CODES.length).toBeGreaterThanOrEqual(160)
    expect(CODES.length).toBeLessThanOrEqual(185)
    for (const code of CODES) {
      expect(code).toMatch(/^[A-Z]{3}$/)
      expect([0, 2, 3, 4]).toContain(ISO_4217[code])
    }
    expect(Object.isFrozen(ISO_4217)).toBe(true)
  })

  it("has the expected minor units", () => {
    const expected: Record<string, number> = {
      USD: 2,
      EUR: 2,
      GBP: 2,
      CNY: 2,
      HKD: 2,
      JPY: 0,
      KRW: 0,
      VND: 0,
      ISK: 0,
      XAF: 0,
      XOF: 0,
      XPF: 0,
      CLP: 0,
      PYG: 0,
      UGX: 0,
      VUV: 0,
      RWF: 0,
      KMF: 0,
      GNF: 0,
      DJF: 0,
      BIF: 0,
      UYI: 0,
      KWD: 3,
      BHD: 3,
      JOD: 3,
      OMR: 3,
      TND: 3,
      LYD: 3,
      IQD: 3,
      CLF: 4,
      UYW: 4,
      VES: 2,
      VED: 2,
      SLE: 2,
      ZWG: 2,
      XCG: 2
    }
    for (const [code, units] of Object.entries(expected)) expect([code, minorUnits(code)]).toEqual([code, units])
  })

  it("leaves out codes without a minor unit and withdrawn codes", () => {
    const absent = [
      ...["XAU", "XAG", "XPT", "XPD", "XDR", "XTS", "XXX", "XBA", "XBB", "XBC", "XBD", "XSU", "XUA"],
      ...["HRK", "SLL", "VEF", "MRO", "STD", "ZMK", "ZWL", "BYR", "LTL", "LVL", "EEK", "ANG", "BGN"]
    ]
    for (const code of absent) expect([code, isCurrencyCode(code), minorUnits(code)]).toEqual([code, false, undefined])
  })
})

describe("isCurrencyCode / minorUnits", () => {
  it("accepts active codes in upper case only, exactly three letters", () => {
    expect(isCurrencyCode("USD")).toBe(true)
    expect(isCurrencyCode("usd")).toBe(false)
    expect(isCurrencyCode("Usd")).toBe(false)
    expect(isCurrencyCode("USD ")).toBe(false)
    expect(isCurrencyCode(" USD")).toBe(false)
    expect(isCurrencyCode("USDX")).toBe(false)
    expect(isCurrencyCode("US")).toBe(false)
    expect(isCurrencyCode("")).toBe(false)
    expect(isCurrencyCode("ABC")).toBe(false)
  })

  it("does not see Object.prototype keys as currencies", () => {
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect(isCurrencyCode(key)).toBe(false)
      expect(minorUnits(key)).toBeUndefined()
    }
  })

  it("returns the minor units of active codes and undefined otherwise", () => {
    expect(minorUnits("USD")).toBe(2)
    expect(minorUnits("JPY")).toBe(0)
    expect(minorUnits("KWD")).toBe(3)
    expect(minorUnits("CLF")).toBe(4)
    expect(minorUnits("usd")).toBeUndefined()
    expect(minorUnits("HRK")).toBeUndefined()
  })
})

describe("parseAmount: accepted amounts", () => {
  it("parses strings into minor units", () => {
    expect(parseAmount("10.00", "USD")).toEqual({ ok: true, money: { currency: "USD", minor: 1000n } })
    expect(ok("10", "USD")).toEqual({ currency: "USD", minor: 1000n })
    expect(ok("10.5", "USD")).toEqual({ currency: "USD", minor: 1050n })
    expect(ok("0.05", "USD")).toEqual({ currency: "USD", minor: 5n })
    expect(ok("0.01", "CNY")).toEqual({ currency: "CNY", minor: 1n })
    expect(ok("100", "JPY")).toEqual({ currency: "JPY", minor: 100n })
    expect(ok("1.5", "KWD")).toEqual({ currency: "KWD", minor: 1500n })
    expect(ok("0.001", "KWD")).toEqual({ currency: "KWD", minor: 1n })
    expect(ok("1.2345", "CLF")).toEqual({ currency: "CLF", minor: 12345n })
    expect(ok("0.0001", "CLF")).toEqual({ currency: "CLF", minor: 1n })
  })

  it("parses numbers through their shortest representation", () => {
    expect(ok(10.5, "USD")).toEqual({ currency: "USD", minor: 1050n })
    expect(ok(10, "USD")).toEqual({ currency: "USD", minor: 1000n })
    expect(ok(0.01, "USD")).toEqual({ currency: "USD", minor: 1n })
    expect(ok(100, "JPY")).toEqual({ currency: "JPY", minor: 100n })
    expect(ok(1.5, "KWD")).toEqual({ currency: "KWD", minor: 1500n })
    expect(ok(0.0001, "CLF")).toEqual({ currency: "CLF", minor: 1n })
    expect(reasonOf(0.000001, "CLF")).toBe("TooManyDecimals")
  })

  it("accepts 12 integer digits and the largest amount that fits", () => {
    expect(ok("999999999999.99", "USD")).toEqual({ currency: "USD", minor: 99999999999999n })
    expect(ok("123456789012", "JPY")).toEqual({ currency: "JPY", minor: 123456789012n })
    expect(ok(999999999999, "JPY")).toEqual({ currency: "JPY", minor: 999999999999n })
    expect(ok("999999999999.9999", "CLF")).toEqual({ currency: "CLF", minor: 9999999999999999n })
  })

  it("keeps precision beyond 2^53 because the value is built from the digits", () => {
    expect(ok("999999999999.9999", "UYW").minor).toBe(9999999999999999n)
    expect(ok("900719925474.0993", "CLF").minor).toBe(9007199254740993n)
  })
})

describe("parseAmount: refused amounts, one reason per rule", () => {
  it("UnknownCurrency for unknown, lower-case, withdrawn and no-minor-unit codes", () => {
    expect(reasonOf("10.00", "usd")).toBe("UnknownCurrency")
    expect(reasonOf("10.00", "HRK")).toBe("UnknownCurrency")
    expect(reasonOf("10.00", "XAU")).toBe("UnknownCurrency")
    expect(reasonOf("10.00", "ABC")).toBe("UnknownCurrency")
    expect(reasonOf("10.00", "")).toBe("UnknownCurrency")
    expect(reasonOf(10, "US")).toBe("UnknownCurrency")
    expect(messageOf("10.00", "usd")).toContain("usd")
    expect(messageOf("10.00", "usd")).toContain("ISO 4217")
  })

  it("TooManyDecimals counts decimals as written", () => {
    expect(reasonOf("10.000", "USD")).toBe("TooManyDecimals")
    expect(reasonOf("10.001", "USD")).toBe("TooManyDecimals")
    expect(messageOf("10.001", "USD")).toBe("amount 10.001 has 3 decimals but USD allows at most 2")
    expect(reasonOf("100.0", "JPY")).toBe("TooManyDecimals")
    expect(reasonOf("100.5", "JPY")).toBe("TooManyDecimals")
    expect(messageOf("100.0", "JPY")).toBe("amount 100.0 has 1 decimals but JPY allows at most 0")
    expect(reasonOf("1.5000", "KWD")).toBe("TooManyDecimals")
    expect(reasonOf("1.23456", "CLF")).toBe("TooManyDecimals")
    expect(reasonOf("0.00", "JPY")).toBe("TooManyDecimals")
  })

  it("TooManyDecimals for numbers whose shortest form has too many decimals (0.1 + 0.2)", () => {
    expect(reasonOf(0.1 + 0.2, "USD")).toBe("TooManyDecimals")
    expect(messageOf(0.1 + 0.2, "USD")).toBe("amount 0.30000000000000004 has 17 decimals but USD allows at most 2")
    expect(reasonOf(10.001, "USD")).toBe("TooManyDecimals")
    expect(reasonOf(100.5, "JPY")).toBe("TooManyDecimals")
  })

  it("TooManyIntegerDigits past 12 digits before the point", () => {
    expect(MAX_INTEGER_DIGITS).toBe(12)
    expect(reasonOf("999999999999", "USD")).toBe("ok")
    expect(reasonOf("1000000000000", "USD")).toBe("TooManyIntegerDigits")
    expect(reasonOf("1000000000000.00", "USD")).toBe("TooManyIntegerDigits")
    expect(reasonOf("1234567890123", "JPY")).toBe("TooManyIntegerDigits")
    expect(reasonOf(1000000000000, "JPY")).toBe("TooManyIntegerDigits")
    expect(reasonOf(1e20, "JPY")).toBe("TooManyIntegerDigits")
    expect(messageOf("1000000000000", "USD")).toBe(
      "amount 1000000000000 has 13 integer digits but at most 12 are allowed"
    )
  })

  it("NotPositive for zero and negative amounts", () => {
    expect(reasonOf("0", "USD")).toBe("NotPositive")
    expect(reasonOf("0.00", "USD")).toBe("NotPositive")
    expect(reasonOf("0.0", "USD")).toBe("NotPositive")
    expect(reasonOf("0", "JPY")).toBe("NotPositive")
    expect(reasonOf(0, "USD")).toBe("NotPositive")
    expect(reasonOf(-0, "USD")).toBe("NotPositive")
    expect(reasonOf(-1, "USD")).toBe("NotPositive")
    expect(reasonOf(-0.5, "USD")).toBe("NotPositive")
    expect(reasonOf("-1", "USD")).toBe("NotPositive")
    expect(reasonOf("-10.00", "USD")).toBe("NotPositive")
    expect(messageOf("0.00", "USD")).toBe("amount 0.00 is not positive: it must be greater than 0")
  })

  it("NotFinite for NaN and infinities", () => {
    expect(reasonOf(Number.NaN, "USD")).toBe("NotFinite")
    expect(reasonOf(Number.POSITIVE_INFINITY, "USD")).toBe("NotFinite")
    expect(reasonOf(Number.NEGATIVE_INFINITY, "USD")).toBe("NotFinite")
    expect(messageOf(Number.NaN, "USD")).toBe("amount NaN is not a finite number")
  })

  it("ExponentNotation for exponent strings and numbers whose shortest form uses an exponent", () => {
    expect(reasonOf("1e3", "USD")).toBe("ExponentNotation")
    expect(reasonOf("1E3", "USD")).toBe("ExponentNotation")
    expect(reasonOf("1.5e2", "USD")).toBe("ExponentNotation")
    expect(reasonOf("1e-2", "USD")).toBe("ExponentNotation")
    expect(reasonOf(1e21, "JPY")).toBe("ExponentNotation")
    expect(reasonOf(1e-7, "CLF")).toBe("ExponentNotation")
    expect(messageOf(1e21, "JPY")).toBe(
      "amount 1e+21 uses exponent notation; write it as a plain decimal such as 10.00"
    )
    expect(messageOf("1e3", "USD")).toContain("exponent")
  })

  it("NotADecimal for any other syntax: leading zeros, signs, whitespace, dots, letters", () => {
    const refused = [
      "010.00",
      "00",
      "01",
      "+1",
      " 10",
      "10 ",
      "1 0",
      "\t10",
      "10\n",
      "",
      ".",
      ".5",
      "10.",
      "1.2.3",
      "1,00",
      "1_000",
      "abc",
      "NaN",
      "Infinity",
      "0x10",
      "١٠",
      "10.0a",
      "--1",
      "-",
      "- 1"
    ]
    for (const amount of refused) expect([amount, reasonOf(amount, "USD")]).toEqual([amount, "NotADecimal"])
    expect(messageOf(" 10", "USD")).toContain('" 10"')
    expect(messageOf("010.00", "USD")).toContain("leading zero")
  })

  it("WrongType for values that are neither strings nor numbers (untyped callers)", () => {
    for (const value of [null, undefined, true, 10n, {}, ["10"]]) {
      expect(reasonOf(value as unknown as string, "USD")).toBe("WrongType")
    }
  })

  it("keeps messages short for huge inputs", () => {
    expect(messageOf("1".repeat(10_000), "USD").length).toBeLessThan(200)
    expect(messageOf(`${"1".repeat(10_000)}x`, "USD").length).toBeLessThan(300)
  })
})

describe("formatAmount", () => {
  it("writes exactly the currency's minor-unit decimals", () => {
    expect(formatAmount({ currency: "USD", minor: 1000n })).toBe("10.00")
    expect(formatAmount({ currency: "USD", minor: 1050n })).toBe("10.50")
    expect(formatAmount({ currency: "USD", minor: 5n })).toBe("0.05")
    expect(formatAmount({ currency: "USD", minor: 0n })).toBe("0.00")
    expect(formatAmount({ currency: "CNY", minor: 1n })).toBe("0.01")
    expect(formatAmount({ currency: "JPY", minor: 100n })).toBe("100")
    expect(formatAmount({ currency: "JPY", minor: 0n })).toBe("0")
    expect(formatAmount({ currency: "KWD", minor: 1500n })).toBe("1.500")
    expect(formatAmount({ currency: "KWD", minor: 1n })).toBe("0.001")
    expect(formatAmount({ currency: "CLF", minor: 12345n })).toBe("1.2345")
    expect(formatAmount({ currency: "CLF", minor: 1n })).toBe("0.0001")
    expect(formatAmount({ currency: "USD", minor: 99999999999999n })).toBe("999999999999.99")
  })

  it("writes negative amounts with a leading minus", () => {
    expect(formatAmount({ currency: "USD", minor: -5n })).toBe("-0.05")
    expect(formatAmount({ currency: "JPY", minor: -100n })).toBe("-100")
  })

  it("throws a RangeError for a currency that is not active", () => {
    expect(() => formatAmount({ currency: "usd", minor: 1n })).toThrow(RangeError)
    expect(() => formatAmount({ currency: "HRK", minor: 1n })).toThrow(RangeError)
  })
})

describe("canonicalAmount", () => {
  it("parses then formats", () => {
    expect(canonicalAmount(10.5, "USD")).toEqual({ ok: true, amount: "10.50" })
    expect(canonicalAmount("10", "USD")).toEqual({ ok: true, amount: "10.00" })
    expect(canonicalAmount(10, "USD")).toEqual({ ok: true, amount: "10.00" })
    expect(canonicalAmount("0.01", "CNY")).toEqual({ ok: true, amount: "0.01" })
    expect(canonicalAmount(100, "JPY")).toEqual({ ok: true, amount: "100" })
    expect(canonicalAmount("1.5", "KWD")).toEqual({ ok: true, amount: "1.500" })
    expect(canonicalAmount(1.5, "CLF")).toEqual({ ok: true, amount: "1.5000" })
  })

  it("returns the parse error unchanged", () => {
    const result = canonicalAmount("10.000", "USD")
    expect(result).toEqual(parseAmount("10.000", "USD"))
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.reason).toBe("TooManyDecimals")
    const unknown = canonicalAmount("10.00", "usd")
    expect(unknown.ok ? "ok" : unknown.error.reason).toBe("UnknownCurrency")
  })
})

describe("properties", () => {
  const currency = fc.constantFrom(...CODES)
  const moneyArb = currency.chain((code) => {
    const units = ISO_4217[code] ?? 0
    const max = 10n ** BigInt(MAX_INTEGER_DIGITS + units) - 1n
    return fc.bigInt({ min: 1n, max }).map((minor): Money => ({ currency: code, minor }))
  })

  it("formatAmount then parseAmount gives back the same money", () => {
    fc.assert(
      fc.property(moneyArb, (money) => {
        const text = formatAmount(money)
        expect(text).toMatch(DECIMAL)
        const units = ISO_4217[money.currency] ?? 0
        expect(text.includes(".") ? (text.split(".")[1] ?? "").length : 0).toBe(units)
        expect(parseAmount(text, money.currency)).toEqual({ ok: true, money })
      }),
      { numRuns: 1000 }
    )
  })

  it("the edges of the range round-trip", () => {
    for (const code of CODES) {
      const units = ISO_4217[code] ?? 0
      for (const minor of [1n, 10n ** BigInt(MAX_INTEGER_DIGITS + units) - 1n]) {
        expect(parseAmount(formatAmount({ currency: code, minor }), code)).toEqual({
          ok: true,
          money: { currency: code, minor }
        })
      }
      const tooBig = formatAmount({ currency: code, minor: 10n ** BigInt(MAX_INTEGER_DIGITS + units) })
      expect([code, reasonOf(tooBig, code)]).toEqual([code, "TooManyIntegerDigits"])
    }
  })

  const decimalLike = fc.oneof(
    fc.string(),
    fc.stringMatching(/^-?[0-9]{1,15}(\.[0-9]{0,6})?$/),
    fc.tuple(fc.nat({ max: 10 ** 9 }), fc.nat({ max: 9999 })).map(([i, f]) => `${i}.${f}`)
  )
  const amountArb = fc.oneof(decimalLike, fc.double(), fc.integer())

  it("parse(format(parse(x))) is stable, and parsing never throws", () => {
    fc.assert(
      fc.property(amountArb, currency, (amount, code) => {
        const first = parseAmount(amount, code)
        if (!first.ok) {
          expect(first.error._tag).toBe("AmountError")
          expect(first.error.message.length).toBeGreaterThan(0)
          return
        }
        expect(first.money.minor > 0n).toBe(true)
        const text = formatAmount(first.money)
        const second = parseAmount(text, code)
        expect(second).toEqual(first)
        if (second.ok) expect(formatAmount(second.money)).toBe(text)
        expect(canonicalAmount(amount, code)).toEqual({ ok: true, amount: text })
      }),
      { numRuns: 2000 }
    )
  })

  it("accepted strings are plain decimals with at most the currency's decimals", () => {
    fc.assert(
      fc.property(decimalLike, currency, (amount, code) => {
        const result = parseAmount(amount, code)
        if (!result.ok) return
        expect(amount).toMatch(DECIMAL)
        const [integer = "", fraction = ""] = amount.split(".")
        expect(integer.length).toBeLessThanOrEqual(MAX_INTEGER_DIGITS)
        expect(fraction.length).toBeLessThanOrEqual(ISO_4217[code] ?? 0)
      }),
      { numRuns: 2000 }
    )
  })

  it("a string with more decimals than the currency allows is refused as TooManyDecimals", () => {
    fc.assert(
      fc.property(currency, fc.nat({ max: 10 ** 9 }), fc.integer({ min: 1, max: 4 }), (code, integer, extra) => {
        const units = ISO_4217[code] ?? 0
        const amount = `${integer + 1}.${"0".repeat(units + extra - 1)}1`
        expect(reasonOf(amount, code)).toBe("TooManyDecimals")
      })
    )
  })

  it("numbers with at most the minor-unit decimals parse to exactly their integer minor amount", () => {
    fc.assert(
      fc.property(
        currency.chain((code) => {
          const units = ISO_4217[code] ?? 0
          // 15 significant digits at most: every such decimal is its own shortest double representation.
          const max = 10n ** BigInt(Math.min(MAX_INTEGER_DIGITS + units, 15)) - 1n
          return fc.bigInt({ min: 1n, max }).map((minor) => ({ code, units, minor: Number(minor) }))
        }),
        ({ code, units, minor }) => {
          const n = minor / 10 ** units
          fc.pre(!/e/i.test(String(n)))
          const result = parseAmount(n, code)
          expect(result).toEqual({ ok: true, money: { currency: code, minor: BigInt(minor) } })
        }
      ),
      { numRuns: 2000 }
    )
  })
})
