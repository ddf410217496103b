import { describe, expect, it } from "@effect/vitest"
import * as ReplayGuard from "../src/ReplayGuard.js"
import { entryOf, WINDOW_MS } from "./support/replayGuards.js"
import { describeReplayGuard } from "./support/replayGuardSuite.js"

const WINDOW = WINDOW_MS
const TTL = 10 * 60 * 1000
const entry = entryOf

describe("ReplayGuard.memory", () => {
  it("answers false the first time and true after, for the same key", () => {
    const guard = ReplayGuard.memory()
    expect(guard.seenBefore(entry("a", 0))).toBe(false)
    expect(guard.seenBefore(entry("a", 1000))).toBe(true)
    expect(guard.seenBefore(entry("b", 1000))).toBe(false)
  })

  it("keeps an entry for ttlMs (default 10 minutes), then forgets it", () => {
    const guard = ReplayGuard.memory()
    guard.seenBefore(entry("a", 0))
    expect(guard.seenBefore(entry("a", TTL - 1))).toBe(true)
    expect(guard.seenBefore(entry("a", TTL))).toBe(false)
  })

  it("never forgets before the timestamp leaves the window, whatever the ttl", () => {
    const guard = ReplayGuard.memory({ ttlMs: WINDOW })
    // A timestamp 4 minutes in the future stays valid until 9 minutes from now.
    guard.seenBefore(entry("a", 0, 4 * 60 * 1000))
    expect(guard.seenBefore(entry("a", 8 * 60 * 1000))).toBe(true)
  })

  it("full of live entries: refuses a new delivery (throws) rather than forgetting one a replay could reuse", () => {
    const guard = ReplayGuard.memory({ maxEntries: 2 })
    guard.seenBefore(entry("a", 0))
    guard.seenBefore(entry("b", 1))
    expect(() => guard.seenBefore(entry("c", 2))).toThrow(/replay guard is full: 2 deliveries/)
    expect(guard.size()).toBe(2)
    // Both live entries are still known: replays of them are refused.
    expect(guard.seenBefore(entry("a", 3))).toBe(true)
    expect(guard.seenBefore(entry("b", 4))).toBe(true)
    // Once the oldest has expired, there is room again.
    expect(guard.seenBefore(entry("c", TTL))).toBe(false)
    expect(guard.seenBefore(entry("b", TTL))).toBe(true)
    expect(guard.size()).toBe(2)
  })

  it("sweeps expired entries from the oldest on, as deliveries arrive", () => {
    const guard = ReplayGuard.memory()
    guard.seenBefore(entry("a", 0))
    guard.seenBefore(entry("b", 0))
    guard.seenBefore(entry("c", 60_000))
    guard.seenBefore(entry("d", TTL + 1))
    // a and b expired at TTL; c (until TTL + 1 minute) is live and ends the sweep.
    expect(guard.size()).toBe(2)
    guard.seenBefore(entry("e", 60 * 60 * 1000))
    expect(guard.size()).toBe(1)
  })

  it("a key whose entry expired but was not swept yet is accepted again", () => {
    const guard = ReplayGuard.memory({ ttlMs: WINDOW })
    // b arrives first but expires last (its timestamp is 4 minutes ahead): it holds the sweep up.
    guard.seenBefore(entry("b", 0, 4 * 60 * 1000))
    guard.seenBefore(entry("a", 1000))
    expect(guard.seenBefore(entry("a", WINDOW + 1000))).toBe(false)
    expect(guard.seenBefore(entry("a", WINDOW + 2000))).toBe(true)
  })

  it("refuses a ttl shorter than the window and a maxEntries under 1", () => {
    expect(() => ReplayGuard.memory({ ttlMs: 60_000 })).toThrow(RangeError)
    expect(() => ReplayGuard.memory({ maxEntries: 0 })).toThrow(RangeError)
  })
})

describeReplayGuard("memory", { make: async (options) => ReplayGuard.memory(options) })
