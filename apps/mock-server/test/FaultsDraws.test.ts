// The callback faults' seeded draws (domain/Faults.ts), on their own: a delay within its range, the
// same draws for the same seed, a shuffle that keeps one order's deliveries in their order, and a
// new setting that starts the draws again.
import { describe, expect, it } from "vitest"
import { makeFaults } from "../src/domain/Faults.js"

const queueAll = (faults: ReturnType<typeof makeFaults>, ids: ReadonlyArray<[string, string]>) =>
  ids.map(([deliveryId, orderSn]) => faults.callbackQueued({ deliveryId, orderSn }))

const deliveries = Array.from({ length: 12 }, (_, i): [string, string] => [`dlv_${i}`, `PC${i}`])

describe("callback fault draws", () => {
  it("delays each first attempt within [min, max], the same for the same seed, and not at all without delayMs", () => {
    const delays = queueAll(makeFaults({ seed: 4, callbacks: { delayMs: [100, 300] } }), deliveries)
    expect(delays.every((ms) => ms >= 100 && ms <= 300)).toBe(true)
    expect(new Set(delays).size).toBeGreaterThan(1)
    expect(queueAll(makeFaults({ seed: 4, callbacks: { delayMs: [100, 300] } }), deliveries)).toEqual(delays)
    expect(queueAll(makeFaults({ seed: 5, callbacks: { delayMs: [100, 300] } }), deliveries)).not.toEqual(delays)
    expect(queueAll(makeFaults({ seed: 4 }), deliveries).every((ms) => ms === 0)).toBe(true)
  })

  it("shuffles a batch by the places drawn when queued, the same for the same seed, and only with outOfOrder", () => {
    const batch = deliveries.map(([id, orderSn]) => ({ id, orderSn }))
    const shuffledWith = (seed: number) => {
      const faults = makeFaults({ seed, callbacks: { outOfOrder: true } })
      queueAll(faults, deliveries)
      return faults.shuffle(batch).map((delivery) => delivery.id)
    }
    const first = shuffledWith(8)
    expect([...first].sort()).toEqual(batch.map((delivery) => delivery.id).sort())
    expect(first).not.toEqual(batch.map((delivery) => delivery.id))
    expect(shuffledWith(8)).toEqual(first)
    const plain = makeFaults({ seed: 8 })
    queueAll(plain, deliveries)
    expect(plain.shuffle(batch)).toBe(batch)
  })

  it("keeps the deliveries of one order in the order they were claimed", () => {
    const batch = [
      { id: "a1", orderSn: "A" },
      { id: "b1", orderSn: "B" },
      { id: "a2", orderSn: "A" },
      { id: "c1", orderSn: "C" },
      { id: "a3", orderSn: "A" },
      { id: "b2", orderSn: "B" }
    ]
    for (let seed = 0; seed < 50; seed++) {
      const faults = makeFaults({ seed, callbacks: { outOfOrder: true } })
      const ids = faults.shuffle(batch).map((delivery) => delivery.id)
      expect(ids.filter((id) => id.startsWith("a"))).toEqual(["a1", "a2", "a3"])
      expect(ids.filter((id) => id.startsWith("b"))).toEqual(["b1", "b2"])
    }
  })

  it("starts the draws again from the seed when a setting is taken in, and keeps the revision it came from", () => {
    const faults = makeFaults({ seed: 2, callbacks: { delayMs: [0, 1_000] } })
    const before = queueAll(faults, deliveries)
    faults.set({ seed: 2, callbacks: { delayMs: [0, 1_000] } }, "rev-2")
    expect(faults.revision()).toBe("rev-2")
    expect(queueAll(faults, deliveries)).toEqual(before)
  })
})
