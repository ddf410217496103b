// The developer dashboard at GET / in Debian's Chromium, against a real mock on 127.0.0.1 and a
// real callback receiver: orders appear and move live (no reload), the buttons pay, resend and
// rotate, the openssl command shown for an attempt verifies with the real openssl, the developer
// token is asked for where the mock requires one, wire text is never markup, the page fits 360 px
// and 1280 px, and its request log stays bounded. Screenshots go to test-artifacts/.
import * as Wire from "@pc/core/Wire"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as MockClient from "../src/api/MockClient.js"
import { MAX_LOG_ROWS } from "../src/dashboard/DashboardPage.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { guardedPage, horizontalOverflow, launch, screenshot } from "./support/browser.js"
import { createOrder, dev, signCreateOrder, testMerchantSigner } from "./support/mock.js"
import { deliveriesOf, orderSnOf, platformVerifiers, verifiedEvent } from "./support/receiver.js"
import { type Receiver, run, startReceiver } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

let mock: Mock
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

let orders = 0
/** Creates an order over real signed HTTP; resolves its orderSn. */
const newOrder = async (orderId = `dash-${Date.now()}-${++orders}`, amount = "12.50"): Promise<string> => {
  const created = await createOrder(mock.url, JSON.stringify({ orderId, amount, currency: "USD" }))
  expect(created.json.code).toBe("SUCCESS")
  return (created.json.data as Wire.CreateOrderResult).orderSn
}

const orderOf = (orderSn: string) =>
  MockClient.run(mock.url, (client) => Effect.map(client.dev.getOrder({ path: { orderSn } }), (answer) => answer.data))

/** Opens the dashboard and waits until it follows the event stream. */
const openDashboard = async (url: string, viewport = { width: 1280, height: 900 }) => {
  const opened = await guardedPage(browser, viewport)
  await opened.page.goto(url)
  return opened
}
const waitLive = (page: Page) => page.locator('[data-testid="live"][data-state="live"]').waitFor()
const card = (page: Page, orderSn: string) => page.locator(`[data-testid="order"][data-order-sn="${orderSn}"]`)

describe("the dashboard at GET /", () => {
  it("shows a new order, then its PAID state and its delivery attempt, without a reload", async () => {
    const { page, outside } = await openDashboard(mock.url)
    await waitLive(page)
    // Set once; a reload would lose it.
    await page.evaluate(() => Object.assign(window, { notReloaded: true }))
    const orderId = `live-${Date.now()}`
    const orderSn = await newOrder(orderId, "12.50")
    const order = card(page, orderSn)
    await order.waitFor()
    expect(await order.getAttribute("data-status")).toBe("CREATED")
    expect(await order.getByTestId("outer-order").textContent()).toBe(orderId)
    expect(await order.getByTestId("amount").textContent()).toBe("12.50 USD")
    // The request log shows the create-order with the production signature check's verdict.
    const createRow = page.locator('[data-testid="request"]', { hasText: Wire.CREATE_ORDER_PATH }).first()
    await createRow.waitFor()
    expect(await createRow.getByTestId("signature").textContent()).toContain("signature valid")

    await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    await page.locator(`[data-testid="order"][data-order-sn="${orderSn}"][data-status="PAID"]`).waitFor()
    const delivery = order.locator('[data-testid="delivery"][data-status="delivered"]')
    await delivery.waitFor()
    const attempt = delivery.getByTestId("attempt").first()
    expect(await attempt.locator("summary").textContent()).toMatch(/#1.*HTTP 200.*\d+ ms/)
    await attempt.locator("summary").click()
    const headers = await attempt.getByTestId("attempt-headers").textContent()
    const [received] = await receiver.waitFor(1, (r) => orderSnOf(r) === orderSn)
    // Exactly what the receiver got: the body, and the signature and timestamp headers.
    expect(await attempt.getByTestId("attempt-body").textContent()).toBe(received!.body)
    expect(headers).toContain(`X-R-Signature: ${received!.headers["x-r-signature"]}`)
    expect(headers).toContain(`X-R-Ts: ${received!.headers["x-r-ts"]}`)
    expect(await page.evaluate(() => (window as { notReloaded?: boolean }).notReloaded)).toBe(true)
    // The browser asks for no /favicon.ico (the page names its own), so the log shows no 404 of it;
    // with no developer token in use there is nothing to forget.
    expect(await page.locator('[data-testid="request"]', { hasText: "favicon" }).count()).toBe(0)
    expect(await page.locator("#forget-token").isHidden()).toBe(true)
    await screenshot(page, "dashboard-1280-paid")
    expect(outside).toEqual([])
    await page.context().close()
  }, 60_000)

  it("pays, resends and rotates from its buttons: the store says so and the receiver gets the callbacks", async () => {
    const { page } = await openDashboard(mock.url)
    await waitLive(page)
    const orderSn = await newOrder()
    const order = card(page, orderSn)
    await order.locator('[data-action="pay"]').click()
    await page.locator(`[data-testid="order"][data-order-sn="${orderSn}"][data-status="PAID"]`).waitFor()
    expect((await orderOf(orderSn)).status).toBe("PAID")
    const [paid] = await receiver.waitFor(1, (r) => orderSnOf(r) === orderSn)
    const keysBefore = await platformVerifiers(mock.url)
    expect((await verifiedEvent(paid!, TEST_MERCHANT_APP_KEY, keysBefore)).event.eventType).toBe("order.paid")

    // Rotate: a new key published and listed in the page, then current on the second click.
    const newest = Math.max(...keysBefore.keys()) + 1
    const statusOfNewest = async () =>
      (
        await MockClient.run(mock.url, (client) => Effect.map(client.dev.listPlatformKeys(), (answer) => answer.data))
      ).find((key) => key.version === newest)?.status
    await page.locator('[data-action="rotate"]').click()
    await page.locator(`[data-testid="platform-key"][data-version="${newest}"]`).waitFor()
    expect(await statusOfNewest()).toBe("published")
    await page.locator('[data-action="rotate"]:not([disabled])').click()
    await expect.poll(statusOfNewest, { timeout: 10_000 }).toBe("current")

    // Resend: the same callback again, signed by the new key, and a second attempt in the page.
    await order.locator('[data-testid="delivery"][data-status="delivered"]').waitFor()
    await order.locator('[data-action="resend"]').click()
    const [, again] = await receiver.waitFor(2, (r) => orderSnOf(r) === orderSn)
    const verified = await verifiedEvent(again!, TEST_MERCHANT_APP_KEY, await platformVerifiers(mock.url))
    expect(verified.keyVersion).toBe(newest)
    await expect.poll(() => order.getByTestId("attempt").count(), { timeout: 10_000 }).toBe(2)
    const [delivery] = await deliveriesOf(mock.url, orderSn)
    expect(delivery!.attempts.map((a) => a.keyVersion)).toEqual([newest - 1, newest])
    await page.context().close()
  }, 60_000)

  it("fails and expires from its buttons, and its request log says why a signature was refused", async () => {
    const { page } = await openDashboard(mock.url)
    await waitLive(page)
    for (const [verb, status] of [
      ["fail", "FAILED"],
      ["expire", "EXPIRED"]
    ] as const) {
      const orderSn = await newOrder()
      await card(page, orderSn).locator(`[data-action="${verb}"]`).click()
      await page.locator(`[data-testid="order"][data-order-sn="${orderSn}"][data-status="${status}"]`).waitFor()
      expect((await orderOf(orderSn)).status).toBe(status)
    }
    // Signed compact, sent pretty-printed: production refuses it, and the log names the likely cause.
    const compact = JSON.stringify({ orderId: `reser-${Date.now()}`, amount: "1.00", currency: "USD" })
    const timestamp = Date.now()
    const signature = await signCreateOrder(await testMerchantSigner(), { timestamp: String(timestamp), body: compact })
    const refused = await createOrder(mock.url, JSON.stringify(JSON.parse(compact), null, 2), { signature, timestamp })
    expect(refused.status).toBe(401)
    const row = page.locator(`[data-request-id="${refused.headers.get("x-request-id")}"]`)
    await row.waitFor()
    const verdict = await row.getByTestId("signature").textContent()
    expect(verdict).toContain("signature refused")
    expect(verdict).toContain(refused.json.msg!)
    expect(verdict).toMatch(/Likely: .*re-serialised/)
    await page.context().close()
  }, 60_000)

  it("shows for each attempt an openssl command that verifies it in bash, and fails for a tampered body", async () => {
    const { page } = await openDashboard(mock.url)
    await waitLive(page)
    const orderSn = await newOrder(`openssl-'quoted'-$(x)-${Date.now()}`)
    await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    const attempt = card(page, orderSn).locator(
      '[data-testid="delivery"][data-status="delivered"] [data-testid="attempt"]'
    )
    await attempt.first().waitFor()
    await attempt.first().locator("summary").click()
    const command = (await attempt.first().getByTestId("verify-command").textContent())!
    const paste = (text: string) => run("bash", [], { input: text, cwd: "/tmp" })
    const verified = await paste(command)
    expect(`${verified.stdout}${verified.stderr}`).toContain("Verified OK")
    expect(verified.code).toBe(0)
    expect(command).toContain('"status":"PAID"')
    const tampered = await paste(command.replace('"status":"PAID"', '"status":"PAIX"'))
    expect(`${tampered.stdout}${tampered.stderr}`).toContain("Verification failure")
    expect(tampered.code).not.toBe(0)
    await page.context().close()
  }, 60_000)

  it("shows an attacker-chosen merchant order id as text, never as markup", async () => {
    const { page } = await openDashboard(mock.url)
    await waitLive(page)
    const hostile = `<img src=x onerror="window.pwned=1">${Date.now()}`
    const orderSn = await newOrder(hostile)
    const order = card(page, orderSn)
    await order.waitFor()
    expect(await order.getByTestId("outer-order").textContent()).toBe(hostile)
    expect(await page.locator("#orders img").count()).toBe(0)
    await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    await order.locator('[data-testid="delivery"][data-status="delivered"]').waitFor()
    expect(await page.locator("img").count()).toBe(0)
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined()
    await page.context().close()
  }, 60_000)

  it("keeps at most its bound of request log rows", async () => {
    const { page } = await openDashboard(mock.url)
    await waitLive(page)
    for (let i = 0; i < MAX_LOG_ROWS + 30; i++) await fetch(`${mock.url}/healthz`)
    const last = await fetch(`${mock.url}/healthz`)
    await page.locator(`[data-request-id="${last.headers.get("x-request-id")}"]`).waitFor()
    expect(await page.getByTestId("request").count()).toBe(MAX_LOG_ROWS)
    await page.context().close()
  }, 60_000)
})

describe.each([
  [360, 740],
  [1280, 900]
])("the dashboard at %i px", (width, height) => {
  it("has no horizontal overflow, with an attempt's details open", async () => {
    const { page, outside } = await openDashboard(mock.url, { width, height })
    await waitLive(page)
    const orderSn = await newOrder(`M-${"x".repeat(56)}-${width}`)
    await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    const attempt = card(page, orderSn).locator(
      '[data-testid="delivery"][data-status="delivered"] [data-testid="attempt"]'
    )
    await attempt.first().waitFor()
    await attempt.first().locator("summary").click()
    await newOrder()
    const overflow = await horizontalOverflow(page)
    expect(overflow.scrollWidth).toBeLessThanOrEqual(overflow.clientWidth)
    await screenshot(page, `dashboard-${width}`)
    await attempt.first().scrollIntoViewIfNeeded()
    await screenshot(page, `dashboard-${width}-attempt`, false)
    expect(outside).toEqual([])
    await page.context().close()
  }, 60_000)
})

describe("the dashboard of a mock bound off loopback (0.0.0.0, a generated developer token)", () => {
  let exposed: Mock
  let base: string
  let token: string

  beforeAll(async () => {
    exposed = await startMock({ environment: "sandbox", host: "0.0.0.0" })
    base = `http://127.0.0.1:${new URL(exposed.listenUrl).port}`
    token = exposed.devAccess.token!
  })
  afterAll(async () => {
    await exposed?.close()
  })

  it("says unauthorized without the token, works with it, and never puts the token in a URL", async () => {
    const { page } = await openDashboard(`${base}/`)
    const urls: Array<string> = []
    page.on("request", (request) => urls.push(request.url()))
    await page.getByTestId("token-panel").waitFor()
    expect(await page.getByTestId("token-reason").textContent()).toMatch(/^unauthorized: /)
    expect(await page.getByTestId("orders").textContent()).not.toContain("exposed-")
    await screenshot(page, "dashboard-token", false)

    const created = await createOrder(
      base,
      JSON.stringify({ orderId: `exposed-${Date.now()}`, amount: 3, currency: "USD" })
    )
    const { orderSn } = created.json.data as Wire.CreateOrderResult
    await page.getByLabel("Developer token").fill("not-the-token")
    await page.getByRole("button", { name: "Use token" }).click()
    await expect.poll(() => page.getByTestId("token-reason").textContent()).toMatch(/not valid/)

    await page.getByLabel("Developer token").fill(token)
    await page.getByRole("button", { name: "Use token" }).click()
    await waitLive(page)
    expect(await page.getByTestId("token-panel").isHidden()).toBe(true)
    expect(await page.evaluate(() => sessionStorage.getItem("pc-mock-dev-token"))).toBe(token)
    expect(await page.locator("#forget-token").isVisible()).toBe(true)
    const order = card(page, orderSn)
    await order.locator('[data-action="pay"]').click()
    await page.locator(`[data-testid="order"][data-order-sn="${orderSn}"][data-status="PAID"]`).waitFor()
    const stored = await fetch(`${base}/dev/orders/${orderSn}`, { headers: { authorization: `Bearer ${token}` } })
    expect(((await stored.json()) as { data: { status: string } }).data.status).toBe("PAID")
    expect(urls.some((url) => url.includes(token))).toBe(false)
    await page.context().close()
  }, 60_000)
})
