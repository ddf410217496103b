/**
 * `pc orders create|show|pay|fail|expire`: create-order through `@pc/client`, and the mock's
 * developer menu for an order's state, moves and callback deliveries.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { createOrder } from "../CreateOrder.js"
import { type OrderMove, using } from "../MockAdmin.js"
import { colour, json, print } from "../Output.js"
import { flags, withSettings } from "../Settings.js"

const create = Command.make(
  "create",
  {
    ...flags,
    orderId: Options.text("order-id").pipe(Options.withDescription("your order id, 1 to 64 characters")),
    amount: Options.text("amount").pipe(Options.withDescription("decimal amount, e.g. 10.00")),
    currency: Options.text("currency").pipe(Options.withDescription("ISO 4217 code, e.g. USD")),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const order = yield* createOrder(settings, { orderId: o.orderId, amount: o.amount, currency: o.currency })
      yield* print(o.json, order, (r) => [
        `${colour.green("created")} order ${r.orderSn} (${r.outerOrder})`,
        `pay at ${r.h5Url}`
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Create a payment order, signed with your key.\nExample: npx pc orders create --order-id M-1001 --amount 10.00 --currency USD"
  )
)

const orderSn = Args.text({ name: "ORDER_SN" }).pipe(Args.withDescription("the order's orderSn"))

const show = Command.make(
  "show",
  { baseUrl: flags.baseUrl, orderSn, json },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const [order, deliveries] = yield* using(settings, (admin) =>
        Effect.all([admin.order(o.orderSn), admin.callbacks(o.orderSn)])
      )
      yield* print(o.json, { ...order, callbacks: deliveries }, (r) => [
        `order ${r.orderSn} (${r.outerOrder}): ${r.status}, ${r.amount} ${r.currency}`,
        `created ${r.createdAt}, updated ${r.updatedAt}`,
        ...r.callbacks.flatMap((d) => [
          `callback ${d.id} ${d.eventType}: ${d.status}, ${d.attemptCount} attempt(s)${d.lastError ? `, last error: ${d.lastError}` : ""}`,
          ...d.attempts.map(
            (a) => `  #${a.attempt} ${a.at} ${a.url ?? "(no notify URL)"} -> ${a.httpStatus ?? a.error ?? "?"}`
          )
        ])
      ])
    })
  )
).pipe(Command.withDescription("Show an order and its callback deliveries.\nExample: npx pc orders show ORDER_SN"))

const move = (verb: OrderMove, description: string) =>
  Command.make(
    verb,
    { baseUrl: flags.baseUrl, orderSn, json },
    withSettings((o, settings) =>
      Effect.gen(function* () {
        const order = yield* using(settings, (admin) => admin.moveOrder(o.orderSn, verb))
        yield* print(o.json, order, (r) => [`order ${r.orderSn} is now ${r.status}; its callback is on its way`])
      })
    )
  ).pipe(Command.withDescription(`${description}\nExample: npx pc orders ${verb} ORDER_SN`))

/** `pc orders`. */
export const orders = Command.make("orders").pipe(
  Command.withDescription(
    "Payment orders.\nExample: npx pc orders create --order-id M-1001 --amount 10.00 --currency USD"
  ),
  Command.withSubcommands([
    create,
    show,
    move("pay", "Pay a CREATED order on the mock (sends order.paid)."),
    move("fail", "Fail a CREATED order on the mock (sends order.failed)."),
    move("expire", "Expire a CREATED order on the mock (sends order.expired).")
  ])
)
