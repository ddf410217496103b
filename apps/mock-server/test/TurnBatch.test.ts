// Calls gathered per turn of the event loop (store/TurnBatch.ts), on real timers and a real runtime.
import { Effect, Runtime } from "effect"
import { describe, expect, it } from "vitest"
import { perTurn } from "../src/store/TurnBatch.js"

describe("perTurn", () => {
  it("runs the calls of one turn together, and those made while a run is in flight in the next", async () => {
    const runs: Array<ReadonlyArray<number>> = []
    const double = perTurn(Runtime.defaultRuntime, (inputs: ReadonlyArray<number>) =>
      Effect.map(Effect.sleep(20), () => {
        runs.push(inputs)
        return inputs.map((n) => n * 2)
      })
    )
    const first = [double(1), double(2), double(3)]
    // The first run has started (after the turn) and sleeps: these wait for it, then go together.
    await new Promise((resolve) => setTimeout(resolve, 5))
    const second = [double(4), double(5)]
    expect(await Promise.all([...first, ...second])).toEqual([2, 4, 6, 8, 10])
    expect(runs).toEqual([
      [1, 2, 3],
      [4, 5]
    ])
  })

  it("splits a turn's calls into runs of at most maxBatch", async () => {
    const runs: Array<number> = []
    const same = perTurn(
      Runtime.defaultRuntime,
      (inputs: ReadonlyArray<string>) =>
        Effect.sync(() => {
          runs.push(inputs.length)
          return inputs
        }),
      2
    )
    expect(await Promise.all(["a", "b", "c", "d", "e"].map(same))).toEqual(["a", "b", "c", "d", "e"])
    expect(runs).toEqual([2, 2, 1])
  })

  it("rejects every call of a failed run with its failure, and the next run still serves", async () => {
    let fail = true
    const lookup = perTurn(Runtime.defaultRuntime, (inputs: ReadonlyArray<string>) =>
      fail ? Effect.fail(new Error("database away")) : Effect.succeed(inputs.map((s) => s.length))
    )
    const failed = await Promise.allSettled([lookup("a"), lookup("bb")])
    expect(failed.map((r) => (r.status === "rejected" ? (r.reason as Error).message : "served"))).toEqual([
      "database away",
      "database away"
    ])
    fail = false
    expect(await lookup("ccc")).toBe(3)
  })

  it("rejects the calls as a defect when a run answers another number of outputs than it was given", async () => {
    const wrong = perTurn(Runtime.defaultRuntime, (inputs: ReadonlyArray<number>) => Effect.succeed(inputs.slice(1)))
    const settled = await Promise.allSettled([wrong(1), wrong(2)])
    for (const result of settled) {
      expect(result.status).toBe("rejected")
      if (result.status === "rejected") expect(String(result.reason)).toContain("a batch of 2 answered 1")
    }
  })
})
