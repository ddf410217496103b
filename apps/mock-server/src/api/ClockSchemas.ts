/** The bodies of the mock's clock routes (CONTRACT.md "Faults and time"). */
import * as Schema from "effect/Schema"

/** `GET /dev/clock`'s answer, and `POST /dev/clock/advance`'s. */
export const ClockState = Schema.Struct({
  now: Schema.String.annotations({ description: "the mock's time: the real time plus offsetMs (ISO 8601)" }),
  offsetMs: Schema.Int.annotations({ description: "how far the clock has been moved forward, in milliseconds" })
}).annotations({
  identifier: "ClockState",
  examples: [{ now: "2026-01-01T00:31:00.000Z", offsetMs: 1_860_000 }]
})

/** `POST /dev/clock/advance`'s body. */
export const ClockAdvance = Schema.Struct({
  ms: Schema.Int.pipe(Schema.positive()).annotations({
    description: "how far to move the clock forward, in milliseconds (> 0)",
    message: () => "ms: a whole number of milliseconds above 0 is required"
  })
}).annotations({ identifier: "ClockAdvance", examples: [{ ms: 1_800_000 }] })
