import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { backoffDelay, parseRetryAfter } from "../../src/internal/retry.js"

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-21T08:00:00.000Z")

  it("reads delay-seconds", () => {
    expect(parseRetryAfter("0", now)).toBe(0)
    expect(parseRetryAfter("1", now)).toBe(1000)
    expect(parseRetryAfter(" 120 ", now)).toBe(120_000)
  })

  it("reads an HTTP date, relative to now, and a past date as 0", () => {
    expect(parseRetryAfter("Sat, 21 Nov 2026 08:00:30 GMT", now)).toBe(30_000)
    expect(parseRetryAfter("Sat, 21 Nov 2026 07:59:00 GMT", now)).toBe(0)
  })

  it("measures an HTTP date against the server's Date header when there is one", () => {
    // The server's clock is an hour ahead of ours: its Retry-After is 30 s after its Date.
    const date = "Sat, 21 Nov 2026 09:00:00 GMT"
    expect(parseRetryAfter("Sat, 21 Nov 2026 09:00:30 GMT", now, date)).toBe(30_000)
    expect(parseRetryAfter("Sat, 21 Nov 2026 08:59:00 GMT", now, date)).toBe(0)
    // An unreadable Date falls back to the local clock; delay-seconds ignore it.
    expect(parseRetryAfter("Sat, 21 Nov 2026 08:00:30 GMT", now, "yesterday")).toBe(30_000)
    expect(parseRetryAfter("5", now, date)).toBe(5000)
  })

  it("ignores what is neither", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
    expect(parseRetryAfter("soon", now)).toBeUndefined()
    expect(parseRetryAfter("-1", now)).toBeUndefined()
    expect(parseRetryAfter("1.5", now)).toBeUndefined()
    expect(parseRetryAfter("2026", now)).toBe(2026 * 1000)
  })
})

describe("backoffDelay", () => {
  const backoff = { baseDelayMs: 100, maxDelayMs: 1000, jitter: false }

  it("doubles from the base and stops at the max", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(backoff, n, 0))).toEqual([100, 200, 400, 800, 1000, 1000])
  })

  it("with jitter stays within the upper half of the exponential delay", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, random) => {
          const full = backoffDelay(backoff, retry, 0)
          const jittered = backoffDelay({ ...backoff, jitter: true }, retry, random)
          expect(jittered).toBeGreaterThanOrEqual(full / 2)
          expect(jittered).toBeLessThanOrEqual(full)
        }
      )
    )
  })
})
