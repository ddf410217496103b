// The dashboard's "Audit endpoint" action: per merchant, it runs the audit on the notify URL and
// shows the report, readable at 360 px (no sideways scroll), a failed check with its detail.
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { guardedPage, horizontalOverflow, launch, screenshot } from "./support/browser.js"
import { type FlawedEndpoint, startFlawedEndpoint } from "@pc/test-support"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { dev } from "./support/mock.js"

let mock: RunningMock
let flawed: FlawedEndpoint
let browser: Browser

beforeAll(async () => {
  mock = await startMock({ environment: "production", callbackBackoffMs: 600_000 })
  flawed = await startFlawedEndpoint(mock.url, TEST_MERCHANT_APP_KEY, "past-only-window")
  await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: flawed.url })
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await flawed?.close()
  await mock?.close()
})

describe("the dashboard's Audit endpoint action", () => {
  it.each([
    [360, 740],
    [1280, 900]
  ])(
    "at %i px runs the audit and shows the report",
    async (width, height) => {
      const { page, outside } = await guardedPage(browser, { width, height })
      await page.goto(`${mock.url}/`)
      const merchant = page.locator(`[data-testid="merchant"]`, { hasText: TEST_MERCHANT_APP_KEY })
      await merchant.locator('[data-action="audit"]').click()
      const report = merchant.getByTestId("audit-report")
      await report.waitFor({ timeout: 30_000 })
      const failed = report.locator('[data-testid="audit-check"][data-verdict="fail"]')
      expect(await failed.getAttribute("data-check")).toBe("future-timestamp")
      expect(await failed.textContent()).toContain("only the past")
      expect(await report.getByTestId("audit-check").count()).toBe(19)
      const overflow = await horizontalOverflow(page)
      expect(overflow.scrollWidth).toBeLessThanOrEqual(overflow.clientWidth)
      // In the page, in one step: the live dashboard may re-render the list between a locator's
      // look-up and its scroll (an SSE event), detaching the element it found.
      await page.evaluate(() =>
        document.querySelector('[data-testid="audit-check"][data-verdict="fail"]')?.scrollIntoView()
      )
      await screenshot(page, `dashboard-audit-${width}`, false)
      expect(outside).toEqual([])
      await page.context().close()
    },
    60_000
  )
})
