// The hosted checkout page (h5Url) in a real Chromium: what the payer sees, the Pay and Fail
// buttons, and the signed callback each of them sends to the merchant.
import { chromiumArgs, assertChromium } from "@pc/chromium"
import * as Wire from "@pc/core/Wire"
import { Schema } from "effect"
import { createServer, request as httpRequest } from "node:http"
import type { AddressInfo } from "node:net"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { deliveriesOf, orderSnOf, platformVerifiers, verifiedEvent } from "./support/receiver.js"
import { type Receiver, startReceiver, until } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

let mock: Mock | undefined
let receiver: Receiver | undefined
let browser: Browser | undefined
let page: Page | undefined
const m = () => mock!
const r = () => receiver!
const p = () => page!

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  receiver = await startReceiver()
  const set = await dev(m().url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: r().url })
  expect(set.json.code).toBe("SUCCESS")
  browser = await chromium.launch({ executablePath: assertChromium(), args: [...chromiumArgs], headless: true })
})

afterAll(async () => {
  await browser?.close()
  await mock?.close()
  await receiver?.close()
})

beforeEach(async () => {
  page = await browser!.newPage()
})

afterEach(async () => {
  await page?.close()
})

let sequence = 0

/** A fresh order of the test merchant, created with a real signed request: its ids and h5Url. */
const freshOrder = async (amount: string, currency: string) => {
  const orderId = `web-${process.pid}-${Date.now()}-${++sequence}`
  const created = await createOrder(m().url, JSON.stringify({ orderId, amount, currency }))
  expect(created.json.code).toBe("SUCCESS")
  return { orderId, ...Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data) }
}

/** Waits for the order's callback at the receiver and verifies it with the published platform key. */
const verifiedCallbackOf = async (orderSn: string) => {
  const [request] = await r().waitFor(1, (request) => orderSnOf(request) === orderSn)
  expect(request!.headers["content-type"]).toBe("application/json")
  return verifiedEvent(request!, TEST_MERCHANT_APP_KEY, await platformVerifiers(m().url))
}

const orderStatus = async (orderSn: string) =>
  Schema.decodeUnknownSync(Wire.Order)((await dev(m().url, "GET", `/dev/orders/${orderSn}`)).json.data).status

describe("the hosted checkout page", () => {
  it("shows the amount and the merchant order id; Pay makes the order PAID and sends a valid order.paid", async () => {
    const { orderId, orderSn, h5Url } = await freshOrder("1234.5", "USD")
    expect(h5Url).toBe(`${m().url}/h5/checkout/${orderSn}`)

    const response = await p().goto(h5Url)
    expect(response?.status()).toBe(200)
    expect(response?.headers()["content-type"]).toContain("text/html")
    await expect(p().title()).resolves.toBe(`Checkout ${orderSn}`)
    expect(await p().getByTestId("amount").textContent()).toBe("1234.50 USD")
    expect(await p().getByTestId("outer-order").textContent()).toBe(orderId)
    expect(await p().getByTestId("status").textContent()).toBe("CREATED")
    expect(await p().getByRole("button", { name: "Pay" }).isVisible()).toBe(true)
    expect(await p().getByRole("button", { name: "Fail" }).isVisible()).toBe(true)
    await p().screenshot({ path: "/tmp/checkout.png", fullPage: true })

    await p().getByRole("button", { name: "Pay" }).click()
    await p().waitForURL(h5Url)
    await p().getByTestId("status").filter({ hasText: "PAID" }).waitFor({ timeout: 10_000 })
    expect(await p().getByTestId("status").textContent()).toBe("PAID")
    expect(await p().getByTestId("final").textContent()).toBe("This order is paid.")
    expect(await p().getByRole("button").count()).toBe(0)
    expect(await orderStatus(orderSn)).toBe("PAID")

    const verified = await verifiedCallbackOf(orderSn)
    expect(verified.keyVersion).toBe(1)
    expect(verified.event).toMatchObject({
      eventType: "order.paid",
      orderSn,
      outerOrder: orderId,
      amount: "1234.50",
      currency: "USD",
      status: "PAID"
    })
    const delivery = await until(
      async () => {
        const [d] = await deliveriesOf(m().url, orderSn)
        return d?.status === "delivered" ? d : undefined
      },
      "the delivery to be delivered",
      { timeoutMs: 10_000, intervalMs: 10 }
    )
    expect(delivery.eventId).toBe(verified.event.eventId)
  })

  it("Fail makes the order FAILED and sends a valid order.failed; the final page has no buttons, also after reload", async () => {
    const { orderId, orderSn, h5Url } = await freshOrder("500", "JPY")
    await p().goto(h5Url)
    expect(await p().getByTestId("amount").textContent()).toBe("500 JPY")
    await p().getByRole("button", { name: "Fail" }).click()
    await p().getByTestId("status").filter({ hasText: "FAILED" }).waitFor({ timeout: 10_000 })
    expect(await p().getByRole("button").count()).toBe(0)

    const verified = await verifiedCallbackOf(orderSn)
    expect(verified.event).toMatchObject({
      eventType: "order.failed",
      orderSn,
      outerOrder: orderId,
      amount: "500",
      currency: "JPY",
      status: "FAILED"
    })

    const reloaded = await p().reload()
    expect(reloaded?.status()).toBe(200)
    expect(await p().getByTestId("status").textContent()).toBe("FAILED")
    expect(await p().getByTestId("final").textContent()).toBe("This order is failed.")
    expect(await p().getByRole("button").count()).toBe(0)
    expect(await p().locator("form").count()).toBe(0)
    expect(await orderStatus(orderSn)).toBe("FAILED")
  })

  it("a button pressed on a stale page of a final order changes nothing and sends no second callback", async () => {
    const { orderSn, h5Url } = await freshOrder("3.00", "USD")
    await p().goto(h5Url)
    // The order is paid elsewhere while this page still shows its buttons.
    expect((await dev(m().url, "POST", `/dev/orders/${orderSn}/pay`)).json.code).toBe("SUCCESS")
    await verifiedCallbackOf(orderSn)
    await p().getByRole("button", { name: "Fail" }).click()
    await p().getByTestId("status").filter({ hasText: "PAID" }).waitFor({ timeout: 10_000 })
    expect(await p().getByRole("button").count()).toBe(0)
    expect(await orderStatus(orderSn)).toBe("PAID")
    const deliveries = await deliveriesOf(m().url, orderSn)
    expect(deliveries.map((d) => d.eventType)).toEqual(["order.paid"])
  })

  it("an unknown orderSn answers 404 with the envelope", async () => {
    const response = await p().goto(`${m().url}/h5/checkout/PC00000000000000000000`)
    expect(response?.status()).toBe(404)
    expect(response?.headers()["content-type"]).toContain("application/json")
    expect(await response?.json()).toEqual({ code: "notFound", msg: "no order PC00000000000000000000", data: null })
    const button = await fetch(`${m().url}/h5/checkout/PC00000000000000000000/pay`, {
      method: "POST",
      redirect: "manual"
    })
    expect(button.status).toBe(404)
    expect(await button.json()).toEqual({ code: "notFound", msg: "no order PC00000000000000000000", data: null })
  })
})

describe("the hosted checkout page behind a proxy with a path prefix", () => {
  it("keeps its forms and its redirect under the prefix of --public-url", async () => {
    // A reverse proxy that serves the mock under /pc/, as --public-url http://proxy/pc says.
    let target = ""
    const proxy = createServer((req, res) => {
      if (!req.url?.startsWith("/pc/")) {
        res.writeHead(502, { "content-type": "text/plain" })
        res.end(`outside the prefix: ${req.url}`)
        return
      }
      const upstream = httpRequest(
        `${target}${req.url.slice("/pc".length)}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        }
      )
      req.pipe(upstream)
    })
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    const publicUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/pc`
    const prefixed = await startMock({ environment: "production", publicUrl })
    target = prefixed.listenUrl
    try {
      const orderId = `web-proxy-${Date.now()}`
      const created = await createOrder(prefixed.url, JSON.stringify({ orderId, amount: "2.00", currency: "USD" }))
      const { orderSn, h5Url } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
      expect(h5Url).toBe(`${publicUrl}/h5/checkout/${orderSn}`)

      await p().goto(h5Url)
      expect(await p().getByTestId("outer-order").textContent()).toBe(orderId)
      await p().getByRole("button", { name: "Pay" }).click()
      await p().waitForURL(h5Url)
      await p().getByTestId("status").filter({ hasText: "PAID" }).waitFor({ timeout: 10_000 })
      const order = await dev(prefixed.listenUrl, "GET", `/dev/orders/${orderSn}`)
      expect(order.json.data).toMatchObject({ status: "PAID" })
    } finally {
      await prefixed.close()
      proxy.closeAllConnections()
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
    }
  })
})
