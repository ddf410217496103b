/**
 * `pc trigger order.paid|order.failed|order.expired`: one real signed callback in one command, by
 * creating an order for the configured merchant and moving it on the mock (see `TriggerEvent`).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { colour, json, print } from "../Output.js"
import { progressLine } from "../Progress.js"
import { flags, withSettings } from "../Settings.js"
import {
  eventMoves,
  type FirstAttempt,
  triggerAndWatch,
  triggerEvent,
  triggeredOrderDefaults
} from "../TriggerEvent.js"

/** How long `pc trigger` waits for the first delivery attempt (the mock's callback timeout is 10 s by default). */
const DELIVERY_WAIT = "30 seconds"

/** What the first delivery attempt says, readably. */
const attemptLines = (orderSn: string, found: FirstAttempt | null): Array<string> => {
  if (found === null) {
    return [colour.yellow(`no delivery attempt within ${DELIVERY_WAIT}; follow it: npx pc orders show ${orderSn}`)]
  }
  const { attempt, status, nextAttemptAt } = found
  if (attempt.url === null) {
    return [
      colour.yellow("not delivered: the merchant has no notify URL"),
      colour.dim(
        `receive it here: npx pc listen (it sets the notify URL), then npx pc callbacks resend ${found.deliveryId}`
      )
    ]
  }
  const answer =
    attempt.httpStatus === null ? `failed: ${attempt.error ?? "no answer"}` : `answered ${attempt.httpStatus}`
  return status === "delivered"
    ? [
        `${colour.green("delivered")} to ${attempt.url}: ${answer} (key v${attempt.keyVersion ?? "?"}, ${Math.round(attempt.durationMs)} ms)`
      ]
    : [
        `${colour.red("not delivered")} to ${attempt.url}: ${answer}`,
        // A refused connection is most often a notify URL left by a listener that has ended: say
        // whose URL it is and how to change it, not only the errno.
        ...(/ECONNREFUSED/.test(attempt.error ?? "")
          ? [
              colour.dim(
                `nothing listens there: ${attempt.url} is the merchant's notify URL (set by npx pc listen, npx pc merchants create --notify-url or PUT /dev/merchants/<appKey>/notify-url); run npx pc listen to receive callbacks here`
              )
            ]
          : []),
        colour.dim(
          nextAttemptAt === null
            ? `the mock gives up on it; npx pc orders show ${orderSn}`
            : `the mock retries at ${nextAttemptAt}, as the service would; npx pc orders show ${orderSn}`
        )
      ]
}

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
  colour.dim(`follow it: npx pc orders show ${r.orderSn}`)
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
    noWait: Options.boolean("no-wait").pipe(
      Options.withDescription("do not wait for the mock's first delivery attempt of the callback")
    ),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      if (o.noWait) return yield* print(o.json, yield* triggerEvent(settings, o.event, o), triggeredLines)
      const watched = yield* Effect.scoped(
        Effect.flatMap(progressLine("creating and moving an order, then waiting for its callback's delivery", o), () =>
          triggerAndWatch(settings, o.event, o, DELIVERY_WAIT)
        )
      )
      yield* print(o.json, watched, (r) => [...triggeredLines(r), ...attemptLines(r.orderSn, r.delivery)])
    })
  )
).pipe(
  Command.withDescription(
    "Create an order for the configured merchant and move it, so the mock sends a real signed callback; " +
      "then wait for its first delivery attempt and say what the endpoint answered.\n" +
      "Example: npx pc trigger order.paid"
  )
)
