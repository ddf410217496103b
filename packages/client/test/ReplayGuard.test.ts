import { describe, expect, it } from "@effect/vitest"
import * as ReplayGuard from "../src/ReplayGuard.js"

const WINDOW = 5 * 60 * 1000
const entry = (key: string, receivedAt: number, timestamp = receivedAt): ReplayGuard.ReplayEntry => ({
  key,
  environment: "production",
  keyVersion: 1,
  timestamp,
  signature: "c2ln",
  eventId: "evt_01",
  receivedAt,
  expiresAt: timestamp + WINDOW
})

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
    expect(guard.seenBefore(entry("a", 10 * 60 * 1000 - 1))).toBe(true)
    expect(guard.seenBefore(entry("a", 10 * 60 * 1000))).toBe(false)
  })

  it("never forgets before the timestamp leaves the window, whatever the ttl", () => {
    const guard = ReplayGuard.memory({ ttlMs: WINDOW })
    // A timestamp 4 minutes in the future stays valid until 9 minutes from now.
    guard.seenBefore(entry("a", 0, 4 * 60 * 1000))
    expect(guard.seenBefore(entry("a", 8 * 60 * 1000))).toBe(true)
  })

  it("drops the oldest entries beyond maxEntries", () => {
    const guard = ReplayGuard.memory({ maxEntries: 2 })
    guard.seenBefore(entry("a", 0))
    guard.seenBefore(entry("b", 1))
    guard.seenBefore(entry("c", 2))
    expect(guard.size()).toBe(2)
    expect(guard.seenBefore(entry("c", 3))).toBe(true)
    expect(guard.seenBefore(entry("a", 4))).toBe(false)
  })

  it("sweeps expired entries", () => {
    const guard = ReplayGuard.memory({ maxEntries: 3 })
    guard.seenBefore(entry("a", 0))
    guard.seenBefore(entry("b", 0))
    guard.seenBefore(entry("c", 0))
    guard.seenBefore(entry("d", 60 * 60 * 1000))
    expect(guard.size()).toBe(1)
  })

  it("refuses a ttl shorter than the window and a maxEntries under 1", () => {
    expect(() => ReplayGuard.memory({ ttlMs: 60_000 })).toThrow(RangeError)
    expect(() => ReplayGuard.memory({ maxEntries: 0 })).toThrow(RangeError)
  })
})
