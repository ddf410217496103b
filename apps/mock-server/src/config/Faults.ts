/**
 * The fault setting (CONTRACT.md "Faults and time"): what the mock gets wrong on purpose, seeded so
 * that a failing run can be replayed. Every field is optional; `{}` injects nothing.
 */
import * as Schema from "effect/Schema"

/** A probability, between 0 and 1. */
const Rate = Schema.Number.pipe(
  Schema.between(0, 1, { message: () => "a rate between 0 and 1 is required" })
).annotations({ description: "a probability between 0 and 1", examples: [0.3] })

/** `[min, max]` milliseconds, 0 <= min <= max. */
const DelayRange = Schema.Tuple(Schema.NonNegativeInt, Schema.NonNegativeInt)
  .pipe(Schema.filter(([min, max]) => min <= max || "delayMs: [min, max] with min <= max is required"))
  .annotations({ description: "[min, max] milliseconds, drawn uniformly", examples: [[50, 200]] })

/** The whole fault setting, as `PUT /dev/faults` takes it and `GET /dev/faults` answers it. */
export const FaultSetting = Schema.Struct({
  seed: Schema.optional(
    Schema.Int.annotations({ description: "the PRNG's seed: the same seed and requests give the same faults" })
  ),
  createOrder: Schema.optional(
    Schema.Struct({
      serverErrorRate: Schema.optional(
        Rate.annotations({ description: "answered internalError 500 before anything is stored" })
      ),
      lostResponseRate: Schema.optional(
        Rate.annotations({
          description: "the order is stored (a retry with the same orderId returns it), but the answer is a 500"
        })
      ),
      timeoutRate: Schema.optional(
        Rate.annotations({
          description: "the order is stored, but the connection is held past the client's timeout and closed"
        })
      ),
      delayMs: Schema.optional(DelayRange)
    })
  ),
  callbacks: Schema.optional(
    Schema.Struct({
      duplicateRate: Schema.optional(
        Rate.annotations({
          description: "an acknowledged callback is delivered again: the same eventId, signed afresh with a new X-R-Ts"
        })
      ),
      delayMs: Schema.optional(
        DelayRange.annotations({ description: "[min, max] milliseconds the first attempt of each callback waits" })
      ),
      outOfOrder: Schema.optional(
        Schema.Boolean.annotations({
          description:
            "callbacks due together go out in a seeded shuffled order (different orders only: one order's keep theirs)"
        })
      )
    })
  )
}).annotations({
  identifier: "FaultSetting",
  examples: [{ seed: 42, createOrder: { lostResponseRate: 0.3, timeoutRate: 0.1, delayMs: [0, 50] } }]
})

/** A fault setting. */
export type FaultSetting = typeof FaultSetting.Type

/** What a fault is called: the `X-Mock-Fault` header's value and the `fault` event's `name`. */
export type FaultName = "serverError" | "lostResponse" | "timeout" | "delay"
