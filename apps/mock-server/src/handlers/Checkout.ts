/**
 * The hosted checkout page (`h5Url`): shows the amount and the merchant's order id, with Pay and
 * Fail buttons that make the same moves as the developer menu. Plain HTML forms: no script needed.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { MockApi } from "../api/MockApi.js"
import { MockConfig } from "../config/Config.js"
import { served } from "./Served.js"
import * as Effect from "effect/Effect"
import { orNotFound } from "../domain/ApiError.js"
import { escapeHtml } from "../dashboard/Html.js"
import { Orders } from "../domain/orders/Orders.js"
import { Store } from "../store/Store.js"
import type { DeliveryWithAttempts, OrderRecord } from "../store/Records.js"

/** Where each callback of the order went and how its delivery stands (the page after a move). */
const deliveryReport = (deliveries: ReadonlyArray<DeliveryWithAttempts>, notifyUrl: string | null): string => {
  if (deliveries.length === 0) return ""
  const items = deliveries.map((delivery) => {
    const last = delivery.attempts.at(-1)
    const url = last?.url ?? notifyUrl
    const standing =
      delivery.status === "delivered"
        ? `delivered${last?.httpStatus == null ? "" : ` (HTTP ${last.httpStatus})`}`
        : delivery.status === "failed"
          ? "failed: no more attempts"
          : delivery.attemptCount === 0
            ? "waiting for its first attempt"
            : `pending: attempt ${delivery.attemptCount} failed${delivery.lastError === null ? "" : ` (${delivery.lastError})`}, retried with backoff`
    return `<li data-testid="delivery" data-status="${escapeHtml(delivery.status)}"><code>${escapeHtml(delivery.eventType)}</code> callback to <code data-testid="callback-url">${
      url === null ? "no notify URL set" : escapeHtml(url)
    }</code>: <span data-testid="delivery-status">${escapeHtml(standing)}</span></li>`
  })
  const settled = deliveries.every((delivery) => delivery.status !== "pending")
  return `<div id="deliveries" data-settled="${settled}"><h2>Callback</h2><ul>${items.join("")}</ul></div>`
}

// While a delivery is pending, the page refreshes its report from itself (no /dev access needed).
const LIVE_SCRIPT = `<script>
(function poll() {
  var box = document.getElementById("deliveries");
  if (!box || box.dataset.settled === "true") return;
  setTimeout(function () {
    fetch(location.href, { cache: "no-store" }).then(function (r) { return r.text(); }).then(function (html) {
      var next = new DOMParser().parseFromString(html, "text/html").getElementById("deliveries");
      if (next) box.replaceWith(next);
      poll();
    }, poll);
  }, 500);
})();
</script>`

const page = (
  order: OrderRecord,
  environment: string,
  deliveries: ReadonlyArray<DeliveryWithAttempts> = [],
  notifyUrl: string | null = null
): string => {
  const sn = escapeHtml(encodeURIComponent(order.orderSn))
  const open = order.status === "CREATED"
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkout ${escapeHtml(order.orderSn)}</title>
<style>
  * { box-sizing: border-box; }
  body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
  .card { border: 1px solid #ddd; border-radius: 12px; padding: 1.25rem; }
  /* Order numbers and URLs are long unbroken strings: they wrap instead of widening the page. */
  dd, code, li { overflow-wrap: anywhere; min-width: 0; }
  dd { margin: 0; }
  h2 { font-size: 1rem; margin: 1.25rem 0 .5rem; }
  ul { padding-left: 1.1rem; margin: 0; }
  .amount { font-size: 2rem; font-weight: 600; margin: .5rem 0 1rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; }
  dt { color: #666; }
  form { display: inline; }
  button { font-size: 1rem; padding: .6rem 1.4rem; border-radius: 8px; border: 0; cursor: pointer; margin-right: .5rem; }
  .pay { background: #1f7a3a; color: white; } .fail { background: #b42318; color: white; }
  .status { font-weight: 600; }
  .env { font-size: .8rem; color: #666; text-transform: uppercase; letter-spacing: .05em; }
</style>
</head>
<body>
<div class="card">
  <div class="env">Payment Connect mock · ${escapeHtml(environment)}</div>
  <div class="amount" data-testid="amount">${escapeHtml(order.amount)} ${escapeHtml(order.currency)}</div>
  <dl>
    <dt>Merchant order</dt><dd data-testid="outer-order">${escapeHtml(order.outerOrder)}</dd>
    <dt>Order</dt><dd>${escapeHtml(order.orderSn)}</dd>
    <dt>Status</dt><dd class="status" data-testid="status">${escapeHtml(order.status)}</dd>
  </dl>
  ${
    open
      ? `<form method="post" action="./${sn}/pay"><button class="pay" type="submit">Pay</button></form>
  <form method="post" action="./${sn}/fail"><button class="fail" type="submit">Fail</button></form>`
      : `<p data-testid="final">This order is ${escapeHtml(order.status.toLowerCase())}.</p>`
  }
  ${deliveryReport(deliveries, notifyUrl)}
</div>
${LIVE_SCRIPT}
</body>
</html>`
}

const findOrder = (orderSn: string) =>
  Effect.flatMap(Store, (store) => store.getOrder(orderSn)).pipe(orNotFound(`order ${orderSn}`))

const press = (orderSn: string, to: "PAID" | "FAILED") =>
  served(
    Effect.gen(function* () {
      yield* findOrder(orderSn)
      // Pressing a button on a page that is already final just shows the final state again.
      yield* Effect.flatMap(Orders, (orders) => orders.move(orderSn, to)).pipe(
        Effect.catchIf(
          (error) => error._tag === "ApiError" && error.code === "paramError",
          () => Effect.void
        )
      )
      // Relative to the button's URL (…/h5/checkout/SN/pay), like the forms' actions: behind a
      // proxy that serves the mock under a path prefix (--public-url) both stay under it.
      return HttpServerResponse.redirect(`../${encodeURIComponent(orderSn)}`, { status: 303 })
    })
  )

/** The checkout pages' handlers, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const CheckoutHandlers = HttpApiBuilder.group(MockApi, "checkout", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const context = yield* Effect.context<Store | Orders>()
    return handlers
      .handle("checkoutPage", ({ path }) =>
        served(
          Effect.gen(function* () {
            const order = yield* findOrder(path.orderSn)
            const store = yield* Store
            const deliveries = order.status === "CREATED" ? [] : yield* store.deliveriesOf(order.orderSn)
            const merchant = yield* store.getMerchant(order.appKey)
            const notifyUrl = merchant._tag === "Some" ? merchant.value.notifyUrl : null
            return HttpServerResponse.html(page(order, config.environment, deliveries, notifyUrl)).pipe(
              HttpServerResponse.setHeader("cache-control", "no-store")
            )
          })
        ).pipe(Effect.provide(context))
      )
      .handle("checkoutPay", ({ path }) => Effect.provide(press(path.orderSn, "PAID"), context))
      .handle("checkoutFail", ({ path }) => Effect.provide(press(path.orderSn, "FAILED"), context))
  })
)
