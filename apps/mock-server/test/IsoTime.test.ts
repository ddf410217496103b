// The orderSn's date part (src/IsoTime.ts), which keeps the text of the last day it was asked for.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isoDay, isoTime } from "../src/IsoTime.js"

const fromIsoText = (ms: number) => isoTime(ms).slice(0, 10).replaceAll("-", "")

describe("isoDay", () => {
  it("is the UTC date of the ISO text, across day boundaries and in any order of calls", () => {
    // Times within a few days of each other, so that consecutive calls often share a day and
    // sometimes cross midnight: the kept day must never answer for another.
    const base = Date.UTC(2026, 10, 23)
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 }), { minLength: 1 }), (offsets) => {
        for (const offset of offsets) expect(isoDay(base + offset)).toBe(fromIsoText(base + offset))
      })
    )
  })

  it("answers the last and first millisecond of a day with their own dates", () => {
    const midnight = Date.UTC(2026, 11, 31)
    expect(isoDay(midnight - 1)).toBe("20261230")
    expect(isoDay(midnight)).toBe("20261231")
    expect(isoDay(midnight - 1)).toBe("20261230")
    expect(isoDay(0)).toBe("19700101")
    expect(isoDay(-1)).toBe("19691231")
  })
})
