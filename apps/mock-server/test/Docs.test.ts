// /docs in a real Chromium with the network closed: Scalar renders the mock's document (routes and
// the callbacks) from what the mock serves alone; no request leaves the machine.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser } from "playwright-core"
import { guardedPage, launch, screenshot } from "./support/browser.js"
import { type Mock, startMock } from "@pc/test-support/mock"

let mock: Mock
let browser: Browser

beforeAll(async () => {
  mock = await startMock()
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await mock?.close()
})

describe("GET /docs in Chromium", () => {
  it("renders the reference, the callbacks included, without attempting any request off the machine", async () => {
    const { page, outside } = await guardedPage(browser)
    await page.goto(`${mock.url}/docs`, { waitUntil: "load" })
    await page.getByText("Create a payment order").first().waitFor({ timeout: 30_000 })
    await page.getByText("order.paid").first().waitFor({ timeout: 30_000 })
    const text = await page.evaluate(() => document.body.textContent ?? "")
    expect(text).toContain("Developer menu")
    expect(text).toContain("/openapi.json")
    await page.waitForLoadState("networkidle")
    await screenshot(page, "docs-1280", false)
    expect(outside).toEqual([])
    await page.context().close()
  }, 60_000)
})
