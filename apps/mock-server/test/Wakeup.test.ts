// The delivery loop's sleep and wake-up (Wakeup.ts), on real timers.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { OnTheWire } from "../src/callbacks/Attempt.js"
import { Wakeup } from "../src/callbacks/Wakeup.js"

const timed = async (effect: Effect.Effect<void>): Promise<number> => {
  const start = performance.now()
  await Effect.runPromise(effect)
  return performance.now() - start
}

describe("Wakeup", () => {
  it("sleeps until its time when nothing wakes it", async () => {
    expect(await timed(new Wakeup().sleep(60))).toBeGreaterThanOrEqual(55)
  })

  it("ends a sleep early when woken", async () => {
    const wakeup = new Wakeup()
    setTimeout(wakeup.wakeNow, 20)
    expect(await timed(wakeup.sleep(10_000))).toBeLessThan(2_000)
  })

  it("keeps a wake-up that came while the loop worked for its next sleep, once", async () => {
    const wakeup = new Wakeup()
    await Effect.runPromise(wakeup.wake)
    expect(await timed(wakeup.sleep(10_000))).toBeLessThan(2_000)
    expect(await timed(wakeup.sleep(60))).toBeGreaterThanOrEqual(55)
  })

  it("is woken by work due before it wakes by itself, and by any work while it works", () => {
    const wakeup = new Wakeup()
    expect(wakeup.wakesFor(Number.POSITIVE_INFINITY)).toBe(true)
    wakeup.sleepingUntil = 1_000
    expect(wakeup.wakesFor(999)).toBe(true)
    expect(wakeup.wakesFor(1_000)).toBe(false)
  })

  it("ends a sleep by the time asked with wakeBy, not at once, and not for a later time", async () => {
    const wakeup = new Wakeup()
    const now = Date.now()
    wakeup.sleepingUntil = now + 10_000
    const slept = timed(wakeup.sleep(10_000))
    wakeup.wakeBy(now + 20_000, now)
    expect(wakeup.sleepingUntil).toBe(now + 10_000)
    wakeup.wakeBy(now + 60, now)
    expect(wakeup.sleepingUntil).toBe(now + 60)
    const ms = await slept
    expect(ms).toBeGreaterThanOrEqual(55)
    expect(ms).toBeLessThan(2_000)
  })

  it("keeps a wakeBy that came while the loop worked for its next sleep, once", async () => {
    const wakeup = new Wakeup()
    const now = Date.now()
    wakeup.wakeBy(now + 60, now)
    wakeup.sleepingUntil = now + 10_000
    const ms = await timed(wakeup.sleep(10_000))
    expect(ms).toBeGreaterThanOrEqual(50)
    expect(ms).toBeLessThan(2_000)
    wakeup.sleepingUntil = Date.now() + 60
    expect(await timed(wakeup.sleep(60))).toBeGreaterThanOrEqual(55)
  })

  it("an interrupted sleep leaves no timer or waker behind", async () => {
    const wakeup = new Wakeup()
    await Effect.runPromise(Effect.timeout(wakeup.sleep(10_000), "20 millis").pipe(Effect.ignore))
    // The interrupted sleep's waker is gone: this wake-up is kept for the next sleep.
    wakeup.wakeNow()
    expect(await timed(wakeup.sleep(10_000))).toBeLessThan(2_000)
  })
})

describe("OnTheWire", () => {
  it("cuts off every attempt on a stop, and nothing is sent after", () => {
    const wire = new OnTheWire()
    const cancelled: Array<string> = []
    wire.add("dlv_1", () => cancelled.push("dlv_1"))
    wire.add("dlv_2", () => cancelled.push("dlv_2"))
    wire.delete("dlv_2")
    expect(wire.has("dlv_1")).toBe(true)
    expect(wire.has("dlv_2")).toBe(false)
    const cut: Array<string> = []
    wire.stop((id) => cut.push(id))
    expect(cancelled).toEqual(["dlv_1"])
    expect(cut).toEqual(["dlv_1"])
    expect(wire.has("dlv_1")).toBe(false)
    expect(wire.stopping).toBe(true)
  })
})
