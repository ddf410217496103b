// domain/Step.ts: the same step answers alike whether it runs as an Effect or by Step.run.
import { Effect, Exit, Runtime } from "effect"
import { describe, expect, it } from "vitest"
import { type ApiError, paramError } from "../src/domain/ApiError.js"
import * as Step from "../src/domain/Step.js"

const runFork = Runtime.runFork(Runtime.defaultRuntime)

/** How `step` ends by Step.run, and whether it ended before run returned (no wait at all). */
const byRun = <A, E>(step: Step.Step<A, E>) =>
  new Promise<{ readonly exit: Exit.Exit<A, ApiError | E>; readonly atOnce: boolean }>((resolve) => {
    let returned = false
    Step.run(step, runFork, (exit) => resolve({ exit, atOnce: !returned }))
    returned = true
  })

const refused = paramError("amount: not a number")

describe("Step", () => {
  // atOnce: whether run ends before it returns; `undefined` for an Effect, whose fiber ends at once
  // when nothing in it waits.
  const cases: ReadonlyArray<
    readonly [string, () => Step.Step<number, string>, Exit.Exit<number, ApiError | string>, boolean | undefined]
  > = [
    ["a plain value", () => 1, Exit.succeed(1), true],
    ["a plain refusal", () => refused, Exit.fail(refused), true],
    ["a Promise of a value", () => Promise.resolve(2), Exit.succeed(2), false],
    ["a Promise of a refusal", () => Promise.resolve(refused), Exit.fail(refused), false],
    ["an Effect that succeeds", () => Effect.succeed(3), Exit.succeed(3), undefined],
    ["an Effect that waits", () => Effect.as(Effect.sleep(1), 6), Exit.succeed(6), false],
    ["an Effect that fails with another error", () => Effect.fail("storage"), Exit.fail("storage"), undefined],
    ["a Promise of an Effect", () => Promise.resolve(Effect.succeed(4)), Exit.succeed(4), false]
  ]
  for (const [name, step, expected, atOnce] of cases) {
    it(`${name}: the same end by run and as an Effect${atOnce ? ", by run at once" : ""}`, async () => {
      const ran = await byRun(step())
      expect(ran.exit).toStrictEqual(expected)
      if (atOnce !== undefined) expect(ran.atOnce).toBe(atOnce)
      expect(await Effect.runPromiseExit(Step.toEffect(step()))).toStrictEqual(expected)
    })
  }

  it("match continues a value and a refusal, now, later and in an Effect, and leaves other failures alone", async () => {
    const describe = (step: Step.Step<number, string>) =>
      Step.match(
        step,
        (n) => `value ${n}`,
        (e) => `refused: ${e.msg}`
      )
    expect(describe(5)).toBe("value 5")
    expect(describe(refused)).toBe("refused: amount: not a number")
    expect(await Effect.runPromise(Step.toEffect(describe(Promise.resolve(refused))))).toBe(
      "refused: amount: not a number"
    )
    expect(await Effect.runPromise(Step.toEffect(describe(Effect.fail(refused))))).toBe("refused: amount: not a number")
    expect(await Effect.runPromiseExit(Step.toEffect(describe(Effect.fail("storage"))))).toStrictEqual(
      Exit.fail("storage")
    )
  })

  it("matchAll ends every step, plain, later or in an Effect, with its value or its failure, never failing", async () => {
    const ended = (step: Step.Step<number, string>) =>
      Effect.runPromise(
        Step.toEffect(
          Step.matchAll(
            step,
            (value) => `value ${value}`,
            (cause) => `failed: ${cause instanceof Error ? cause.message : String(cause)}`
          )
        )
      )
    expect(Step.matchAll(5, String, () => "failed")).toBe("5")
    expect(Step.matchAll(refused, String, () => "failed")).toBe("failed")
    expect(await ended(Promise.resolve(6))).toBe("value 6")
    expect(await ended(Promise.reject(new Error("key gone")))).toBe("failed: key gone")
    expect(await ended(Effect.succeed(7))).toBe("value 7")
    expect(await ended(Effect.fail("storage"))).toBe("failed: storage")
    expect(await ended(Effect.die(new Error("bug")))).toBe("failed: bug")
    expect(await ended(Promise.resolve(Effect.fail("storage")))).toBe("failed: storage")
  })

  it("andThen chains plain steps without waiting, and a rejected Promise ends as a defect", async () => {
    const chained = Step.andThen(
      Step.andThen(1, (n) => n + 1),
      (n) => n * 10
    )
    expect(chained).toBe(20)
    const boom = new Error("boom")
    const ran = await byRun(Step.andThen(Promise.reject(boom) as Step.Step<number>, (n) => n))
    expect(ran.exit).toStrictEqual(Exit.die(boom))
  })

  it("mapError turns a storage failure, now or after a Promise, and leaves values and refusals as they are", async () => {
    const tagged = (error: string) => `tagged ${error}`
    expect(Step.mapError(7, tagged)).toBe(7)
    expect(Step.mapError(refused, tagged)).toBe(refused)
    expect(await Effect.runPromiseExit(Step.toEffect(Step.mapError(Effect.fail("storage"), tagged)))).toStrictEqual(
      Exit.fail("tagged storage")
    )
    expect(await Effect.runPromiseExit(Step.toEffect(Step.mapError(Effect.fail(refused), tagged)))).toStrictEqual(
      Exit.fail(refused)
    )
    const later: Step.Step<number, string> = new Promise<Step.Step<number, string>>((resolve) =>
      setTimeout(() => resolve(Effect.fail("storage")), 1)
    )
    expect((await byRun(Step.mapError(later, tagged))).exit).toStrictEqual(Exit.fail("tagged storage"))
  })
})
