// The mock's timestamps and the orderSn's time part (src/store/IsoTime.ts), which keep the text of the
// last day they were asked for.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compactTime, isoTime } from "../src/store/IsoTime.js"

const fromIsoText = (ms: number) => new Date(ms).toISOString().replace(/\D/g, "")

describe("isoTime", () => {
  it("writes what Date's toISOString writes, near each other and across Date's whole range", () => {
    const near = fc.integer({ min: Date.UTC(2026, 10, 20), max: Date.UTC(2026, 10, 26) })
    const anywhere = fc.integer({ min: -8.64e15, max: 8.64e15 })
    fc.assert(
      fc.property(fc.array(fc.oneof(near, anywhere), { minLength: 1 }), (times) => {
        for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString())
      }),
      { numRuns: 500 }
    )
  })

  it("writes a day's first and last millisecond, before 1970 and past 9999, as Date does", () => {
    for (const ms of [
      0,
      -1,
      86_399_999,
      Date.UTC(2026, 11, 31) - 1,
      Date.UTC(10000, 0, 1),
      -62198755200001,
      8.64e15,
      -8.64e15
    ])
      expect(isoTime(ms)).toBe(new Date(ms).toISOString())
  })

  it("is not misled by a day asked for with a fraction of a millisecond", () => {
    // Near 0 the day's start of a fractional time can round off a whole millisecond.
    const fractional = fc.double({ min: -1e8, max: 1e8, noNaN: true })
    const whole = fc.integer({ min: -1e8, max: 1e8 })
    fc.assert(
      fc.property(fc.array(fc.tuple(fractional, whole), { minLength: 1 }), (pairs) => {
        for (const [asked, ms] of pairs) {
          compactTime(asked)
          expect(isoTime(ms)).toBe(new Date(ms).toISOString())
        }
      }),
      { numRuns: 300 }
    )
    compactTime(0.999999999999998)
    expect(isoTime(0)).toBe("1970-01-01T00:00:00.000Z")
    compactTime(-3e-9)
    expect(isoTime(5)).toBe("1970-01-01T00:00:00.005Z")
  })

  it("refuses what Date refuses and truncates a fraction as Date does", () => {
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError)
    expect(() => isoTime(Number.NaN)).toThrow(RangeError)
    expect(isoTime(1.9)).toBe(new Date(1.9).toISOString())
    expect(isoTime(-1.5)).toBe(new Date(-1.5).toISOString())
  })
})

describe("compactTime", () => {
  it("is the digits of the ISO text, across day boundaries and in any order of calls", () => {
    // Times within a few days of each other, so that consecutive calls often share a day and
    // sometimes cross midnight: the kept day must never answer for another.
    const base = Date.UTC(2026, 10, 23)
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 }), { minLength: 1 }), (offsets) => {
        for (const offset of offsets) expect(compactTime(base + offset)).toBe(fromIsoText(base + offset))
      })
    )
  })

  it("answers the last and first millisecond of a day with their own dates", () => {
    const midnight = Date.UTC(2026, 11, 31)
    expect(compactTime(midnight - 1)).toBe("20261230235959999")
    expect(compactTime(midnight)).toBe("20261231000000000")
    expect(compactTime(0)).toBe("19700101000000000")
    expect(compactTime(-1)).toBe("19691231235959999")
    // Outside years 0 to 9999 the ISO text has a sign and six digits of year: still only its digits.
    for (const ms of [8.64e15, -8.64e15, Date.UTC(10000, 0, 1), -62198755200001])
      expect(compactTime(ms)).toBe(fromIsoText(ms))
  })

  it("sorts as the times do, for the years a clock can show (1000 to 9999)", () => {
    const year1000 = Date.UTC(1000, 0, 1)
    const year9999 = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
    fc.assert(
      fc.property(
        fc.integer({ min: year1000, max: year9999 }),
        fc.integer({ min: year1000, max: year9999 }),
        (a, b) => {
          expect(compactTime(a) < compactTime(b)).toBe(a < b)
        }
      )
    )
  })
})
