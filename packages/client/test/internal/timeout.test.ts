import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Option, TestClock } from "effect"
import { timeoutOption } from "../../src/internal/timeout.js"

describe("timeoutOption", () => {
  it.live("on the live clock: Some for a value, the error for a failure, None when the time runs out", () =>
    Effect.gen(function* () {
      expect(yield* timeoutOption(Effect.succeed(1), 1000)).toEqual(Option.some(1))
      expect(yield* Effect.flip(timeoutOption(Effect.fail("boom"), 1000))).toBe("boom")
      const interrupted = yield* Deferred.make<void>()
      const result = yield* timeoutOption(
        Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))),
        10
      )
      expect(result).toEqual(Option.none())
      // The timed-out effect was interrupted, not left running.
      yield* Deferred.await(interrupted)
    })
  )

  it.live("on the live clock: interrupting the caller interrupts the effect", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        timeoutOption(
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          ),
          60_000
        )
      )
      yield* Deferred.await(started)
      expect(Exit.isInterrupted(yield* Fiber.interrupt(fiber))).toBe(true)
      yield* Deferred.await(interrupted)
    })
  )

  it.effect("on the TestClock: None only once the test moves the clock past the limit", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(timeoutOption(Effect.never, 5000))
      yield* TestClock.adjust("4999 millis")
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toEqual(Option.none())
    })
  )
})
