// The callback targets' values from rounds: medians of per-round ratios, not ratios of medians, and
// a round whose bare deliverer could not run misses the target with its reason.
import { describe, expect, it } from "vitest"
import { bareFirst, callbackRatios } from "../src/CallbackRounds.js"

describe("callbackRatios", () => {
  it("takes each round's ratios within the round, then their median", () => {
    // A neighbour slowed the second round's mock and the third round's bare deliverer: the ratio of
    // the medians (1,700 / 2,900 = 0.586) is not what any round measured; the rounds' median is.
    const ratios = callbackRatios([
      { mockPerSecond: 1_800, rawSignaturesPerSecond: 2_000, bare: { perSecond: 3_000 } },
      { mockPerSecond: 1_200, rawSignaturesPerSecond: 1_500, bare: { perSecond: 2_900 } },
      { mockPerSecond: 1_700, rawSignaturesPerSecond: 2_000, bare: { perSecond: 2_000 } }
    ])
    expect(ratios.overBareRounds).toEqual([0.6, 1_200 / 2_900, 0.85])
    expect(ratios.overBare).toBe(0.6)
    expect(ratios.overRaw).toBe(0.85)
    expect(ratios.mockPerSecond).toBe(1_700)
    expect(ratios.barePerSecond).toBe(2_900)
    expect(ratios.bareSkipped).toBeUndefined()
  })

  it("misses the bare deliverer's target with the first reason when it did not run in some round", () => {
    const ratios = callbackRatios([
      { mockPerSecond: 1_800, rawSignaturesPerSecond: 2_000, bare: { perSecond: 2_000 } },
      { mockPerSecond: 1_700, rawSignaturesPerSecond: 2_000, bare: { skipped: "spawn ENOENT" } },
      { mockPerSecond: 1_600, rawSignaturesPerSecond: 2_000, bare: { skipped: "timed out" } }
    ])
    expect(ratios.overBare).toBe(0)
    expect(ratios.bareSkipped).toBe("spawn ENOENT")
    expect(ratios.overBareRounds).toEqual([0.9])
    expect(ratios.barePerSecond).toBe(2_000)
    // The raw signatures' target does not depend on the bare deliverer.
    expect(ratios.overRaw).toBe(0.85)
  })

  it("refuses no rounds at all rather than give a NaN a target would read as missed for no reason", () => {
    expect(() => callbackRatios([])).toThrow(RangeError)
  })
})

describe("bareFirst", () => {
  it("alternates which of the two runs first, the mock in the first round", () => {
    expect([0, 1, 2, 3].map(bareFirst)).toEqual([false, true, false, true])
  })
})
