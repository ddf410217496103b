/**
 * `pc trigger order.paid|order.failed|order.expired`: one real signed callback in one command, by
 * creating an order for the configured merchant (through `@pc/client`) and moving it on the mock.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { createOrder } from "../CreateOrder.js"
import { type OrderMove, using } from "../MockAdmin.js"
import { colour, json, print } from "../Output.js"
import { flags, withSettings } from "../Settings.js"

const moves: Array<[string, OrderMove]> = [
  ["order.paid", "pay"],
  ["order.failed", "fail"],
  ["order.expired", "expire"]
]

/** `pc trigger`. */
export const trigger = Command.make(
  "trigger",
  {
    ...flags,
    event: Args.choice(moves, { name: "EVENT" }).pipe(
      Args.withDescription("order.paid, order.failed or order.expired")
    ),
    amount: Options.text("amount").pipe(Options.withDefault("10.00"), Options.withDescription("the order's amount")),
    currency: Options.text("currency").pipe(
      Options.withDefault("USD"),
      Options.withDescription("the order's currency")
    ),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const orderId = `pc-trigger-${Date.now()}-${Math.floor(Math.random() * 1e6)}`
      const created = yield* createOrder(settings, { orderId, amount: o.amount, currency: o.currency })
      const order = yield* using(settings, (admin) => admin.moveOrder(created.orderSn, o.event))
      const eventType = moves.find(([, move]) => move === o.event)![0]
      yield* print(o.json, { eventType, ...order, h5Url: created.h5Url }, (r) => [
        `${colour.green("triggered")} ${r.eventType}: order ${r.orderSn} (${r.outerOrder}) ${r.amount} ${r.currency} is ${r.status}`,
        colour.dim(`follow it: pc orders show ${r.orderSn}`)
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Create an order for the configured merchant and move it, so the mock sends a real signed callback.\n" +
      "Example: pc trigger order.paid"
  )
)
