/**
 * `pc clock show|advance`: the mock's clock (CONTRACT.md "Faults and time"). Moving it forward
 * expires the orders whose time to live has passed and sends the retries that came due, at once;
 * signatures stay on real time.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { parseDuration } from "../Duration.js"
import type { ClockState } from "../MockAdmin.js"
import { using } from "../MockAdmin.js"
import { json, print } from "../Output.js"
import { flags, withSettings } from "../Settings.js"

const describeClock = (clock: ClockState) => [`mock time ${clock.now} (moved forward ${clock.offsetMs} ms)`]

const show = Command.make(
  "show",
  { baseUrl: flags.baseUrl, json },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const clock = yield* using(settings, (admin) => admin.clock.show())
      yield* print(o.json, clock, describeClock)
    })
  )
).pipe(Command.withDescription("Show the mock's time and how far it has been moved.\nExample: npx pc clock show"))

const advance = Command.make(
  "advance",
  {
    baseUrl: flags.baseUrl,
    json,
    duration: Args.text({ name: "DURATION" }).pipe(Args.withDescription("how far: 500ms, 90s, 30m, 2h or 1d"))
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const ms = yield* parseDuration(o.duration)
      const clock = yield* using(settings, (admin) => admin.clock.advance(ms))
      yield* print(o.json, clock, describeClock)
    })
  )
).pipe(
  Command.withDescription(
    "Move the mock's clock forward: orders past their time to live expire and retries that came due go out at once.\nExample: npx pc clock advance 30m"
  )
)

/** `pc clock`. */
export const clock = Command.make("clock").pipe(
  Command.withDescription("The mock's clock, which tests move forward.\nExample: npx pc clock advance 30m"),
  Command.withSubcommands([show, advance])
)
