// The dashboard's clock control, and its marks of faults on purpose, in Debian's Chromium, against a real mock on 127.0.0.1 and a real
// receiver: the page shows the mock's time, and its "+30 min" button moves the clock, which expires
// an open order live (its callback sent) without a reload. A mock of its own: the move expires every
// open order of the mock.
import * as Wire from "@pc/core/Wire"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { guardedPage, launch, screenshot } from "./support/browser.js"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { createOrder, dev } from "./support/mock.js"
import { type Receiver, startReceiver } from "@pc/test-support"
import { orderSnOf } from "./support/receiver.js"

let mock: RunningMock
let receiver: Receiver
let browser: Browser

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  receiver = await startReceiver()
  await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: receiver.url })
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await mock?.close()
  await receiver?.close()
})

describe("the dashboard's clock", () => {
  it("shows the mock's time, and +30 min expires an open order live", async () => {
    const { page, outside } = await guardedPage(browser, { width: 1280, height: 900 })
    await page.goto(mock.url)
    await page.locator('[data-testid="live"][data-state="live"]').waitFor()
    await expect.poll(() => page.getByTestId("clock").textContent()).toMatch(/\(moved forward 0 min\)$/)
    const created = await createOrder(
      mock.url,
      JSON.stringify({ orderId: `clock-dash-${Date.now()}`, amount: "2.00", currency: "USD" })
    )
    const { orderSn } = created.json.data as Wire.CreateOrderResult
    const card = page.locator(`[data-testid="order"][data-order-sn="${orderSn}"]`)
    await card.waitFor()
    expect(await card.getAttribute("data-status")).toBe("CREATED")

    // The TTL is 30 minutes: one press moves the clock to it, the second past it.
    await page.locator('[data-action="advance-clock"]').click()
    await expect.poll(() => page.getByTestId("clock").textContent()).toMatch(/\(moved forward 30 min\)$/)
    await page.locator('[data-action="advance-clock"]:not([disabled])').click()
    await expect.poll(() => page.getByTestId("clock").textContent()).toMatch(/\(moved forward 60 min\)$/)
    await page.locator(`[data-testid="order"][data-order-sn="${orderSn}"][data-status="EXPIRED"]`).waitFor()
    const [callback] = await receiver.waitFor(1, (request) => orderSnOf(request) === orderSn, 5_000)
    expect(JSON.parse(callback!.body)).toMatchObject({ eventType: "order.expired" })
    await screenshot(page, "dashboard-clock")
    expect(outside).toEqual([])
    await page.context().close()
  }, 60_000)

  it("marks a create-order faulted on purpose in the request log with its fault", async () => {
    const { page, outside } = await guardedPage(browser, { width: 1280, height: 900 })
    await page.goto(mock.url)
    await page.locator('[data-testid="live"][data-state="live"]').waitFor()
    await dev(mock.url, "PUT", "/dev/faults", { seed: 3, createOrder: { lostResponseRate: 1 } })
    const lost = await createOrder(
      mock.url,
      JSON.stringify({ orderId: `fault-dash-${Date.now()}`, amount: "2.00", currency: "USD" })
    )
    expect(lost.status).toBe(500)
    await dev(mock.url, "DELETE", "/dev/faults")
    const row = page.locator('[data-testid="request"]', { hasText: Wire.CREATE_ORDER_PATH }).first()
    await row.waitFor()
    expect(await row.getByTestId("fault").textContent()).toBe("fault lostResponse")
    expect(outside).toEqual([])
    await page.context().close()
  }, 60_000)

  it("shows the fault setting in force and each callback fault as it happens, and the setting cleared", async () => {
    const { page, outside } = await guardedPage(browser, { width: 1280, height: 900 })
    await page.goto(mock.url)
    await page.locator('[data-testid="live"][data-state="live"]').waitFor()
    await expect.poll(() => page.getByTestId("fault-setting").textContent()).toMatch(/^none/)
    const setting = { seed: 4, callbacks: { delayMs: [200, 200], duplicateRate: 1 } }
    await dev(mock.url, "PUT", "/dev/faults", setting)
    await expect
      .poll(async () => JSON.parse((await page.getByTestId("fault-setting").textContent()) ?? "null"))
      .toEqual(setting)
    const orderId = `fault-callback-dash-${Date.now()}`
    const created = await createOrder(mock.url, JSON.stringify({ orderId, amount: "2.00", currency: "USD" }))
    const { orderSn } = created.json.data as Wire.CreateOrderResult
    await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    // Delayed by 200 ms, then sent again after it was acknowledged.
    await receiver.waitFor(2, (request) => orderSnOf(request) === orderSn, 10_000)
    const faults = page.getByTestId("callback-faults")
    await faults.locator('[data-name="delay"]', { hasText: orderId }).waitFor()
    await faults.locator('[data-name="duplicate"]').first().waitFor()
    expect(await faults.locator('[data-name="delay"]').first().textContent()).toContain("200 ms")
    await dev(mock.url, "DELETE", "/dev/faults")
    await expect.poll(() => page.getByTestId("fault-setting").textContent()).toMatch(/^none/)
    await screenshot(page, "dashboard-faults")
    expect(outside).toEqual([])
    await page.context().close()
  }, 60_000)
})
