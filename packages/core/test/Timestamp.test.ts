import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { checkWindow, parse, WINDOW_MS } from "../src/Timestamp.js"

const NOW = 1763712000000
const FIVE_MINUTES = 5 * 60 * 1000

describe("WINDOW_MS", () => {
  it("is the spec's 5 minutes (spec 8)", () => {
    expect(WINDOW_MS).toBe(300000)
  })
})

describe("checkWindow", () => {
  it("accepts a timestamp equal to now, with zero skew", () => {
    expect(checkWindow(NOW, NOW)).toEqual({ ok: true, skewMs: 0 })
  })

  it("accepts exactly 5 minutes behind and ahead (bounds included)", () => {
    expect(checkWindow(NOW - FIVE_MINUTES, NOW)).toEqual({ ok: true, skewMs: -FIVE_MINUTES })
    expect(checkWindow(NOW + FIVE_MINUTES, NOW)).toEqual({ ok: true, skewMs: FIVE_MINUTES })
  })

  it("refuses one millisecond beyond either bound", () => {
    const behind = checkWindow(NOW - FIVE_MINUTES - 1, NOW)
    const ahead = checkWindow(NOW + FIVE_MINUTES + 1, NOW)
    expect(behind.ok).toBe(false)
    expect(ahead.ok).toBe(false)
    expect(behind.skewMs).toBe(-300001)
    expect(ahead.skewMs).toBe(300001)
  })

  it("has skewMs = timestamp - now: negative when the sender's clock is behind, positive when ahead", () => {
    expect(checkWindow(NOW - 1234, NOW).skewMs).toBe(-1234)
    expect(checkWindow(NOW + 1234, NOW).skewMs).toBe(1234)
  })

  it("says 'behind' and the seconds for a timestamp in the past", () => {
    const result = checkWindow(NOW - 301000, NOW)
    if (result.ok) throw new Error("expected a refusal")
    expect(result.message).toContain("behind")
    expect(result.message).not.toContain("ahead")
    expect(result.message).toMatch(/\b301 s\b/)
    expect(result.message).toContain("5 minute window")
  })

  it("says 'ahead of' and the seconds for a timestamp in the future", () => {
    const result = checkWindow(NOW + 3600000, NOW)
    if (result.ok) throw new Error("expected a refusal")
    expect(result.message).toContain("ahead of")
    expect(result.message).not.toContain("behind")
    expect(result.message).toMatch(/\b3600 s\b/)
  })

  it("names the skew of a timestamp sent in seconds instead of milliseconds", () => {
    const result = checkWindow(Math.floor(NOW / 1000), NOW)
    if (result.ok) throw new Error("expected a refusal")
    expect(result.skewMs).toBe(Math.floor(NOW / 1000) - NOW)
    expect(result.message).toContain("behind")
  })

  it("uses a custom window, bounds included, and names it in minutes", () => {
    const twoMinutes = 120000
    expect(checkWindow(NOW + twoMinutes, NOW, twoMinutes).ok).toBe(true)
    expect(checkWindow(NOW - twoMinutes, NOW, twoMinutes).ok).toBe(true)
    const refused = checkWindow(NOW - twoMinutes - 1, NOW, twoMinutes)
    expect(refused.ok).toBe(false)
    const wide = checkWindow(NOW - 200000, NOW, twoMinutes)
    if (wide.ok) throw new Error("expected a refusal")
    expect(wide.message).toContain("2 minute window")
    expect(wide.message).toMatch(/\b200 s\b/)
    // The same skew is fine under the default 5 minutes.
    expect(checkWindow(NOW - 200000, NOW).ok).toBe(true)
  })

  it("with a zero window accepts only the exact instant", () => {
    expect(checkWindow(NOW, NOW, 0).ok).toBe(true)
    expect(checkWindow(NOW + 1, NOW, 0).ok).toBe(false)
    expect(checkWindow(NOW - 1, NOW, 0).ok).toBe(false)
  })

  it("property: ok exactly when |skew| <= 300000, with skewMs the skew and a message naming its direction", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4102444800000 }),
        fc.oneof(
          fc.integer({ min: -2 * FIVE_MINUTES, max: 2 * FIVE_MINUTES }),
          fc.integer({ min: -FIVE_MINUTES - 2, max: -FIVE_MINUTES + 2 }),
          fc.integer({ min: FIVE_MINUTES - 2, max: FIVE_MINUTES + 2 }),
          fc.integer({ min: -1e12, max: 1e12 })
        ),
        (now, skew) => {
          const result = checkWindow(now + skew, now)
          expect(result.ok).toBe(Math.abs(skew) <= 300000)
          expect(result.skewMs).toBe(skew)
          if (!result.ok) expect(result.message).toContain(skew < 0 ? "behind" : "ahead of")
        }
      )
    )
  })

  it("property: with a custom window, ok exactly when |skew| <= window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4102444800000 }),
        fc.integer({ min: -3600000, max: 3600000 }),
        fc.integer({ min: 0, max: 3600000 }),
        (now, skew, window) => {
          expect(checkWindow(now + skew, now, window).ok).toBe(Math.abs(skew) <= window)
        }
      )
    )
  })
})

describe("parse", () => {
  it.each([
    ["1763712000000", 1763712000000],
    ["0", 0],
    ["1", 1],
    ["1763712000", 1763712000],
    ["9007199254740991", 9007199254740991]
  ])("parses %j", (text, expected) => {
    expect(parse(text)).toBe(expected)
  })

  it.each([
    "",
    " 1",
    "1 ",
    "+1",
    "-1",
    "1e3",
    "1.5e12",
    "1.0",
    "1763712000000.5",
    "017",
    "00",
    "abc",
    "0x10",
    "1_000",
    "1,000",
    "\u0661\u0662",
    "１２",
    "9007199254740992",
    "9007199254740993",
    "99999999999999999999",
    "Infinity",
    "NaN"
  ])("refuses %j", (text) => {
    expect(parse(text)).toBeUndefined()
  })

  it("property: every safe non-negative integer round-trips through its decimal text", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(parse(String(n))).toBe(n)
      })
    )
  })

  it("property: a leading zero, a sign or surrounding space is always refused", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.constantFrom("0", "+", "-", " ", "\t"), fc.boolean(), (n, extra, before) => {
        const text = before ? extra + String(n) : String(n) + extra
        // "n" + "0" is just another number; every other decoration must be refused.
        if (!before && extra === "0") return
        expect(parse(text)).toBeUndefined()
      })
    )
  })

  it("property: a digit string above the safe integer range is refused", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }), (n) => {
        expect(parse(n.toString())).toBeUndefined()
      })
    )
  })
})

describe("checkWindow message", () => {
  it("never reads as exactly the window when refusing, and names sub-minute windows in seconds", () => {
    const refused = checkWindow(0, 300_001)
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(refused.message).toContain("301 s behind")
    const short = checkWindow(0, 60_000, 30_000)
    if (!short.ok) expect(short.message).toContain("30 second window")
    expect(short.ok).toBe(false)
  })
})
