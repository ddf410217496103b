// Security round 3 (issue 32), points 2 and 3, from a real Chromium page as an attacker would send
// them: a page served by a second local server on another origin tries the developer menu with
// fetch (cors and no-cors), a form POST and a sandboxed (Origin: null) form; a page on a name that
// rebinds to 127.0.0.1 at the mock's port (same origin as the mock, Host naming the attacker)
// tries to read and change it. None of it may change the mock or read it; the dashboard still works.
import type * as Wire from "@pc/core/Wire"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { assertChromium, chromiumArgs } from "@pc/chromium"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { createOrder, dev } from "./support/mock.js"
import { rawExchange, requestBytes } from "./support/raw.js"

let mock: RunningMock
let port: number
let attacker: Server
let attackerPort: number
let browser: Browser

/** The attacker's page: it does what `window.attack` is told, and reports every outcome. */
const ATTACK_PAGE = `<!doctype html><meta charset="utf-8"><title>attacker</title><body><script>
window.attempt = async (url, init) => {
  try {
    const response = await fetch(url, init)
    let text = null
    try { text = await response.text() } catch (error) { text = "unreadable: " + error }
    return { type: response.type, status: response.status, text, cors: response.headers.get("access-control-allow-origin") }
  } catch (error) {
    return { error: String(error) }
  }
}
window.formPost = (action, sandboxed) => {
  const html = '<form method="POST" action="' + action + '"><input name="x" value="1"></form><script>document.forms[0].submit()<\\/script>'
  const frame = document.createElement("iframe")
  if (sandboxed) frame.setAttribute("sandbox", "allow-forms allow-scripts")
  frame.srcdoc = html
  document.body.appendChild(frame)
}
</script></body>`

const mockUrl = () => `http://127.0.0.1:${port}`

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  port = Number(new URL(mock.listenUrl).port)
  attacker = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(ATTACK_PAGE)
  })
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve))
  attackerPort = (attacker.address() as AddressInfo).port
  // Chromium 150 asks the user before a page reaches loopback (Local Network Access); other
  // browsers and older Chromium do not, and the mock must hold alone: the checks are turned off.
  browser = await chromium.launch({
    executablePath: assertChromium(),
    args: [
      ...chromiumArgs,
      "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights"
    ],
    headless: true
  })
})
afterAll(async () => {
  await browser?.close()
  await mock?.close()
  await new Promise((resolve) => attacker?.close(resolve))
})

let orders = 0
const newOrder = async (): Promise<string> => {
  const created = await createOrder(
    mock.url,
    JSON.stringify({ orderId: `xsite-${Date.now()}-${++orders}`, amount: "500.00", currency: "USD" })
  )
  expect(created.json.code).toBe("SUCCESS")
  return (created.json.data as Wire.CreateOrderResult).orderSn
}

const orderStatus = async (orderSn: string): Promise<string> =>
  ((await dev<{ status: string }>(mock.url, "GET", `/dev/orders/${orderSn}`)).json.data as { status: string }).status

const platformKeyCount = async (): Promise<number> =>
  ((await dev<ReadonlyArray<unknown>>(mock.url, "GET", "/dev/platform-keys")).json.data as ReadonlyArray<unknown>)
    .length

const merchantKeyStatuses = async (): Promise<ReadonlyArray<string>> =>
  (
    (await dev<{ keys: ReadonlyArray<{ status: string }> }>(mock.url, "GET", `/dev/merchants/${TEST_MERCHANT_APP_KEY}`))
      .json.data as { keys: ReadonlyArray<{ status: string }> }
  ).keys.map((key) => key.status)

interface Attempt {
  readonly type?: string
  readonly status?: number
  readonly text?: string | null
  readonly cors?: string | null
  readonly error?: string
}

/** A page of a context whose name `rebind.example` resolves to 127.0.0.1, as a rebinding DNS answer would. */
const pageAt = async (url: string): Promise<{ readonly page: Page; readonly context: BrowserContext }> => {
  const context = await browser.newContext()
  // The attacker's document, served by the attacker's server, under whatever origin the test names.
  await context.route(
    (target) => target.pathname === "/attack",
    async (route) => route.fulfill({ response: await route.fetch({ url: `http://127.0.0.1:${attackerPort}/` }) })
  )
  const page = await context.newPage()
  await page.goto(url)
  return { page, context }
}

const attempt = (page: Page, url: string, init: Record<string, unknown>): Promise<Attempt> =>
  page.evaluate(
    ([u, i]) => (window as unknown as { attempt: (u: string, i: unknown) => Promise<Attempt> }).attempt(u, i),
    [url, init] as const
  )

const formPost = async (page: Page, action: string, sandboxed: boolean): Promise<void> => {
  await page.evaluate(([a, s]) => (window as unknown as { formPost: (a: string, s: boolean) => void }).formPost(a, s), [
    action,
    sandboxed
  ] as const)
  // The form navigates its frame: give the request time to arrive and be answered.
  await page.waitForTimeout(500)
}

describe("a page on another origin (issue 32, point 3)", () => {
  it("cannot pay an order with fetch, with or without no-cors, nor with a form, a sandboxed form included", async () => {
    const { page, context } = await pageAt(`http://127.0.0.1:${attackerPort}/attack`)
    try {
      const orderSn = await newOrder()
      const pay = `${mockUrl()}/dev/orders/${orderSn}/pay`
      const cors = await attempt(page, pay, { method: "POST" })
      expect(cors.error).toMatch(/Failed to fetch/)
      const opaque = await attempt(page, pay, { method: "POST", mode: "no-cors" })
      expect(opaque.type).toBe("opaque")
      const textPlain = await attempt(page, pay, {
        method: "POST",
        mode: "no-cors",
        headers: { "content-type": "text/plain" },
        body: "{}"
      })
      expect(textPlain.type).toBe("opaque")
      await formPost(page, pay, false)
      await formPost(page, pay, true)
      expect(await orderStatus(orderSn)).toBe("CREATED")
    } finally {
      await context.close()
    }
  })

  it("cannot rotate the platform key nor disable the test merchant's key", async () => {
    const { page, context } = await pageAt(`http://127.0.0.1:${attackerPort}/attack`)
    try {
      const keysBefore = await platformKeyCount()
      await attempt(page, `${mockUrl()}/dev/platform-keys/rotate`, { method: "POST", mode: "no-cors" })
      await formPost(page, `${mockUrl()}/dev/platform-keys/rotate`, false)
      const disable = `${mockUrl()}/dev/merchants/${TEST_MERCHANT_APP_KEY}/keys/1/disable`
      await attempt(page, disable, { method: "POST", mode: "no-cors" })
      await formPost(page, disable, true)
      expect(await platformKeyCount()).toBe(keysBefore)
      expect(await merchantKeyStatuses()).toEqual(["active"])
    } finally {
      await context.close()
    }
  })

  it("cannot read the developer menu: no /dev/ answer lets another origin read it", async () => {
    const { page, context } = await pageAt(`http://127.0.0.1:${attackerPort}/attack`)
    try {
      const read = await attempt(page, `${mockUrl()}/dev/merchants`, {})
      expect(read.error).toMatch(/Failed to fetch/)
      const opaque = await attempt(page, `${mockUrl()}/dev/orders`, { mode: "no-cors" })
      expect(opaque).toMatchObject({ type: "opaque", status: 0, text: "" })
    } finally {
      await context.close()
    }
  })
})

describe("a page whose name rebinds to the mock (issue 32, point 2)", () => {
  const rebound = () => `http://rebind.example:${port}`

  it("is same-origin with the mock, and still reads nothing and changes nothing: its Host is refused 401", async () => {
    const context = await browser.newContext()
    // The rebinding: the attacker's name now resolves to 127.0.0.1 (Chromium's resolver is told
    // so per request below), and the page it served first is still open on that origin.
    await context.route(`${rebound()}/**`, async (route) => {
      const url = new URL(route.request().url())
      if (url.pathname === "/attack") {
        return route.fulfill({ response: await route.fetch({ url: `http://127.0.0.1:${attackerPort}/` }) })
      }
      // Everything else goes to 127.0.0.1 at the mock's port, with the Host the browser wrote.
      const response = await route.fetch({
        url: `${mockUrl()}${url.pathname}${url.search}`,
        headers: { ...route.request().headers(), host: url.host }
      })
      return route.fulfill({ response })
    })
    const page = await context.newPage()
    try {
      await page.goto(`${rebound()}/attack`)
      const orderSn = await newOrder()
      const read = await attempt(page, "/dev/merchants", {})
      expect(read.status).toBe(401)
      expect(JSON.parse(read.text ?? "{}")).toMatchObject({ code: "unauthorized", data: null })
      const events = await attempt(page, "/dev/orders", {})
      expect(events.status).toBe(401)
      const pay = await attempt(page, `/dev/orders/${orderSn}/pay`, { method: "POST" })
      expect(pay.status).toBe(401)
      const notify = await attempt(page, `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ notifyUrl: "http://attacker.example/steal" })
      })
      expect(notify.status).toBe(401)
      expect(await orderStatus(orderSn)).toBe("CREATED")
    } finally {
      await context.close()
    }
  })
})

describe("the dashboard's own actions (issue 32, point 3)", () => {
  it("still work: a disabled test merchant key is enabled again from its button", async () => {
    await dev(mock.url, "POST", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/keys/1/disable`)
    expect(await merchantKeyStatuses()).toEqual(["disabled"])
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(`${mockUrl()}/`)
      await page.locator('[data-action="enable-key"]').click()
      await expect.poll(merchantKeyStatuses, { timeout: 10_000 }).toEqual(["active"])
      await expect.poll(() => page.locator('[data-action="enable-key"]').count(), { timeout: 10_000 }).toBe(0)
    } finally {
      await context.close()
    }
  })
})

describe("the Host and Origin rules, in every spelling (raw requests)", () => {
  const get = (host: string) => rawExchange(port, requestBytes("GET", "/dev/merchants", [["Host", host]]))
  const post = (headers: ReadonlyArray<readonly [string, string]>) =>
    rawExchange(
      port,
      requestBytes("POST", "/dev/platform-keys/rotate", [
        ["Host", `127.0.0.1:${port}`],
        ["Content-Length", "0"],
        ...headers
      ])
    )

  it.each([
    () => `127.0.0.1:${port}`,
    () => `localhost:${port}`,
    () => `LOCALHOST.:${port}`,
    () => `[::1]:${port}`,
    () => `[::ffff:127.0.0.1]:${port}`,
    () => `app.localhost:${port}`
  ])("takes Host %#, a loopback name or address with the mock's port", async (host) => {
    expect(await get(host())).toMatchObject({ kind: "answer", status: 200 })
  })

  it.each([
    () => "rebind.example",
    () => `rebind.example:${port}`,
    () => "127.0.0.1",
    () => "localhost",
    () => `127.0.0.1:${port + 1}`,
    () => `evil.example@127.0.0.1:${port}`,
    () => `127.0.0.1:${port}/x`,
    () => `127.0.0.1.evil.example:${port}`,
    () => `localhost.evil.example:${port}`,
    () => `[::1]:${port}@evil.example`,
    () => ""
  ])("refuses Host %# 401 unauthorized", async (host) => {
    const answer = await get(host())
    expect(answer).toMatchObject({ kind: "answer", status: 401 })
    if (answer.kind === "answer") expect(JSON.parse(answer.body)).toMatchObject({ code: "unauthorized", data: null })
  })

  it.each([
    ["Origin", "null"],
    ["Origin", "http://evil.example"],
    ["Origin", `http://127.0.0.1:${1}`],
    ["Origin", "http://localhost:3000"],
    ["Origin", "file://"],
    ["Sec-Fetch-Site", "cross-site"],
    ["Sec-Fetch-Site", "same-site"]
  ] as const)("refuses a change with %s: %s", async (name, value) => {
    const keys = await platformKeyCount()
    expect(await post([[name, value]])).toMatchObject({ kind: "answer", status: 401 })
    expect(await platformKeyCount()).toBe(keys)
  })

  it("takes a change from the mock's own origin, in any of its names", async () => {
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]) {
      expect(
        await post([
          ["Origin", origin],
          ["Sec-Fetch-Site", "same-origin"]
        ])
      ).toMatchObject({ status: 200 })
    }
  })

  it("a bound address off loopback and a public URL are names of the mock too", async () => {
    const publicMock = await startMock({ publicUrl: "https://mock.example.test/base" })
    try {
      const publicPort = Number(new URL(publicMock.listenUrl).port)
      const at = (host: string) => rawExchange(publicPort, requestBytes("GET", "/healthz", [["Host", host]]))
      expect(await at("mock.example.test")).toMatchObject({ status: 200 })
      expect(await at("mock.example.test:443")).toMatchObject({ status: 200 })
      expect(await at("mock.example.test:8443")).toMatchObject({ status: 401 })
      expect(await at(`localhost:${publicPort}`)).toMatchObject({ status: 200 })
    } finally {
      await publicMock.close()
    }
  })
})
