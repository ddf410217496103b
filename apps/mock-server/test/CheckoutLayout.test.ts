// The checkout page on a 360 px phone and a 1280 px screen in Chromium: no sideways scroll (long
// ids wrap), and after Pay it says which callback went to which URL and how its delivery stands,
// updating by itself while the delivery is pending. Screenshots go to test-artifacts/.
import type * as Wire from "@pc/core/Wire"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { guardedPage, horizontalOverflow, launch, screenshot } from "./support/browser.js"
import { createOrder, dev } from "./support/mock.js"
import { type Receiver, startReceiver } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

let mock: Mock
let receiver: Receiver
let browser: Browser

beforeAll(async () => {
  mock = await startMock()
  receiver = await startReceiver()
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await mock?.close()
  await receiver?.close()
})

// 64 characters without a break: the longest orderId the contract allows.
const LONG_ID = `M-${"x".repeat(62)}`

describe.each([
  [360, 740],
  [1280, 900]
])("the checkout page at %i px", (width, height) => {
  it("fits without sideways scroll, and after Pay shows the callback's URL and its delivery, live", async () => {
    // The receiver first refuses, so the page shows a pending delivery and must update by itself.
    receiver.answer((_, n) => (n === 0 ? 500 : 200))
    await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: receiver.url })
    const created = await createOrder(
      mock.url,
      JSON.stringify({ orderId: `${LONG_ID.slice(0, 60)}${width}`, amount: "10.00", currency: "USD" })
    )
    const { h5Url } = created.json.data as Wire.CreateOrderResult
    const { page, outside } = await guardedPage(browser, { width, height })
    await page.goto(h5Url)
    const before = await horizontalOverflow(page)
    expect(before.scrollWidth).toBeLessThanOrEqual(before.clientWidth)
    await screenshot(page, `checkout-${width}-open`)
    await page.getByRole("button", { name: "Pay" }).click()
    await page.getByTestId("final").waitFor()
    await expect.poll(() => page.getByTestId("callback-url").first().textContent()).toBe(receiver.url)
    // The page reloads its report itself until the retry is delivered: no reload from here.
    await page.locator('[data-testid="delivery"][data-status="delivered"]').waitFor({ timeout: 20_000 })
    expect(await page.getByTestId("delivery-status").first().textContent()).toMatch(/^delivered \(HTTP 200\)/)
    const after = await horizontalOverflow(page)
    expect(after.scrollWidth).toBeLessThanOrEqual(after.clientWidth)
    await screenshot(page, `checkout-${width}-paid`)
    expect(outside).toEqual([])
    await page.context().close()
  }, 60_000)
})
