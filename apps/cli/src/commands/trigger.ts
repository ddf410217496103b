/**
 * `pc trigger order.paid|order.failed|order.expired`: one real signed callback in one command, by
 * creating an order for the configured merchant and moving it on the mock (see `TriggerEvent`).
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { colour, json, print } from "../Output.js"
import { flags, withSettings } from "../Settings.js"
import { eventMoves, triggerEvent, triggeredOrderDefaults } from "../TriggerEvent.js"

/** The `--amount` and `--currency` of a triggered order (`pc trigger`, `pc listen --trigger`). */
export const triggeredOrder = {
  amount: Options.text("amount").pipe(
    Options.withDefault(triggeredOrderDefaults.amount),
    Options.withDescription("the order's amount")
  ),
  currency: Options.text("currency").pipe(
    Options.withDefault(triggeredOrderDefaults.currency),
    Options.withDescription("the order's currency")
  )
}

/** The human lines of a trigger. */
export const triggeredLines = (r: {
  eventType: string
  orderSn: string
  outerOrder: string
  amount: string
  currency: string
  status: string
}) => [
  `${colour.green("triggered")} ${r.eventType}: order ${r.orderSn} (${r.outerOrder}) ${r.amount} ${r.currency} is ${r.status}`,
  colour.dim(`follow it: pc orders show ${r.orderSn}`)
]

/** `pc trigger`. */
export const trigger = Command.make(
  "trigger",
  {
    ...flags,
    event: Args.choice(eventMoves, { name: "EVENT" }).pipe(
      Args.withDescription("order.paid, order.failed or order.expired")
    ),
    ...triggeredOrder,
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const triggered = yield* triggerEvent(settings, o.event, o)
      yield* print(o.json, triggered, triggeredLines)
    })
  )
).pipe(
  Command.withDescription(
    "Create an order for the configured merchant and move it, so the mock sends a real signed callback.\n" +
      "Example: pc trigger order.paid"
  )
)
