// Exposure (CONTRACT.md): bound to an address that is not loopback (0.0.0.0, reached here through
// 127.0.0.1), every /dev route refuses without the developer token and works with it, and the
// start-up output warns. The production API, health and checkout stay open.
import * as Wire from "@pc/core/Wire"
import { KeyPair } from "@pc/crypto-node"
import { Schema } from "effect"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readyMessage } from "../src/main/Ready.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder } from "./support/mock.js"
import { PC_BIN, spawnNode } from "./support/process.js"
import { findSecrets } from "./support/secrets.js"
import { type Mock, startMock } from "@pc/test-support/mock"

const logs: Array<string> = []
const outputs: Array<string> = []
let mock: Mock
let base: string
let token: string

beforeAll(async () => {
  mock = await startMock({ environment: "production", host: "0.0.0.0" }, { logSink: (line) => logs.push(line) })
  base = `http://127.0.0.1:${new URL(mock.listenUrl).port}`
  token = mock.devAccess.token!
})
afterAll(async () => {
  await mock?.close()
  expect(findSecrets([...logs, ...outputs])).toEqual([])
})

const call = async (method: string, path: string, authorization: string | undefined, body?: unknown) => {
  const headers: Record<string, string> = {}
  if (authorization !== undefined) headers.authorization = authorization
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  // Deliveries carry the signatures the mock sent (the dashboard shows them, with the command that
  // verifies them): not a secret, since a callback signature only vouches for what the merchant
  // already received, and here the menu is behind the token. Every other answer is scanned.
  if (!path.startsWith("/dev/callbacks")) outputs.push(text)
  return {
    status: response.status,
    requestId: response.headers.get("x-request-id"),
    json: JSON.parse(text) as { code: string; msg: string | null; data: unknown }
  }
}

describe("bound to 0.0.0.0 without --dev-token", () => {
  it("generates a token, and hands out URLs a browser can open", async () => {
    expect(mock.devAccess).toMatchObject({ generated: true, exposed: true })
    expect(token.length).toBeGreaterThanOrEqual(32)
    expect(mock.url).toBe(base)
    const created = await createOrder(base, JSON.stringify({ orderId: "exp-1", amount: "1.00", currency: "USD" }))
    const { h5Url } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
    expect(h5Url.startsWith(`${base}/h5/checkout/`)).toBe(true)
  })

  it("warns at start-up, naming what the developer menu can do, and prints the token", () => {
    const message = readyMessage(mock)
    outputs.push(message)
    expect(message).toMatch(/WARNING: bound to http:\/\/0\.0\.0\.0:\d+, which is not a loopback address/)
    expect(message).toMatch(/registers merchant keys/)
    expect(message).toMatch(/pays orders/)
    expect(message).toContain(`developer token:      ${token} (generated`)
  })

  it("refuses every /dev route without the token or with a wrong one, and serves it with the token", async () => {
    const pair = await KeyPair.generate(2048)
    const created = await createOrder(base, JSON.stringify({ orderId: "exp-2", amount: "1.00", currency: "USD" }))
    const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
    const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["POST", "/dev/merchants", { publicKeyPem: pair.publicKeyPem }],
      ["GET", `/dev/merchants/${TEST_MERCHANT_APP_KEY}`],
      ["POST", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/keys`, { publicKeyPem: pair.publicKeyPem }],
      ["POST", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/keys/2/disable`],
      ["PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: "http://127.0.0.1:9/callbacks" }],
      ["GET", "/dev/platform-keys"],
      ["POST", "/dev/platform-keys/rotate"],
      ["GET", `/dev/orders/${orderSn}`],
      ["POST", `/dev/orders/${orderSn}/pay`],
      ["GET", `/dev/callbacks?orderSn=${orderSn}`],
      ["GET", "/dev/orders?limit=5"],
      ["GET", "/dev/merchants"],
      ["GET", "/dev/no-such-route"]
    ]
    for (const [method, path, body] of routes) {
      for (const authorization of [undefined, `Bearer ${token}x`, `Basic ${token}`]) {
        const refused = await call(method, path, authorization, body)
        expect({ method, path, authorization, status: refused.status, code: refused.json.code }).toMatchObject({
          status: 401,
          code: "unauthorized"
        })
        expect(refused.requestId).toMatch(/\S/)
      }
    }
    // Nothing was changed by the refused calls: still one platform key, the order still CREATED.
    const keys = await call("GET", "/dev/platform-keys", `Bearer ${token}`)
    expect(keys.json.data).toHaveLength(1)
    const order = await call("GET", `/dev/orders/${orderSn}`, `Bearer ${token}`)
    expect(order.json.data).toMatchObject({ status: "CREATED" })

    for (const [method, path, body] of routes) {
      const served = await call(method, path, `Bearer ${token}`, body)
      const expected = path === "/dev/no-such-route" ? "notFound" : "SUCCESS"
      expect({ method, path, code: served.json.code, msg: served.json.msg }).toMatchObject({ code: expected })
    }
    // The delivery of the paid order exists, so resend is reachable, and guarded, too.
    const deliveries = await call("GET", `/dev/callbacks?orderSn=${orderSn}`, `Bearer ${token}`)
    const [delivery] = deliveries.json.data as ReadonlyArray<{ id: string }>
    expect((await call("POST", `/dev/callbacks/${delivery!.id}/resend`, undefined)).status).toBe(401)
    expect((await call("POST", `/dev/callbacks/${delivery!.id}/resend`, `Bearer ${token}`)).json.code).toBe("SUCCESS")
  })

  it("guards the clock and the faults like every /dev route: a refused call changes nothing", async () => {
    for (const [method, path, body] of [
      ["GET", "/dev/clock"],
      ["POST", "/dev/clock/advance", { ms: 60_000 }],
      ["GET", "/dev/faults"],
      ["PUT", "/dev/faults", { createOrder: { serverErrorRate: 1 } }],
      ["DELETE", "/dev/faults"]
    ] as const) {
      for (const authorization of [undefined, `Bearer ${token}x`]) {
        expect((await call(method, path, authorization, body)).status).toBe(401)
      }
    }
    expect((await call("GET", "/dev/faults", `Bearer ${token}`)).json.data).toEqual({})
    const clock = await call("GET", "/dev/clock", `Bearer ${token}`)
    expect(clock.json.data).toMatchObject({ offsetMs: 0 })
    const moved = await call("POST", "/dev/clock/advance", `Bearer ${token}`, { ms: 60_000 })
    expect(moved.json).toMatchObject({ code: "SUCCESS", data: { offsetMs: 60_000 } })
  })

  it("keeps the production API, health and the checkout page open", async () => {
    expect((await call("GET", "/healthz", undefined)).json.code).toBe("SUCCESS")
    const created = await createOrder(base, JSON.stringify({ orderId: "exp-3", amount: "1.00", currency: "USD" }))
    expect(created.json.code).toBe("SUCCESS")
    const { h5Url } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
    expect((await fetch(h5Url)).status).toBe(200)
  })
})

describe("the mock as a process bound to 0.0.0.0", () => {
  it("prints the warning and a working token at start-up", async () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url))
    const { child, output: read } = spawnNode(
      [PC_BIN, "mock", "--host", "0.0.0.0", "--port", "0", "--db", ":memory:"],
      root
    )
    try {
      const ready = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          if (/developer token: +\S+/.test(read())) {
            clearInterval(timer)
            resolve(read())
          }
        }, 20)
        child.once("exit", () => {
          clearInterval(timer)
          reject(new Error(`the mock exited:\n${read()}`))
        })
      })
      outputs.push(ready)
      expect(ready).toMatch(/WARNING: bound to http:\/\/0\.0\.0\.0:\d+, which is not a loopback address/)
      const printed = /developer token: +(\S+)/.exec(ready)![1]!
      const port = /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(ready)![1]!
      const url = `http://127.0.0.1:${port}/dev/platform-keys`
      expect((await fetch(url)).status).toBe(401)
      expect((await fetch(url, { headers: { authorization: `Bearer ${printed}` } })).status).toBe(200)
    } finally {
      child.kill("SIGKILL")
    }
  }, 60_000)
})
