// pc listen without --forward-to: callbacks outside --events are answered 200 and shown as
// skipped; a callback signed with another key is refused (answered 401, printed with its reason),
// so a forged request never passes for the mock's.
import { RequestSigning, Testing } from "@pc/client"
import { KeyRing } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { NodeCrypto } from "@pc/crypto-node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, pcBackground, type Running, testMerchant } from "./support/Pc.js"

let mock: Mock
// Every listener a test started: each test starts its own, and each is killed at the end, whether
// its test ended it or not (one variable kept only the last, and the first outlived the run).
const listeners: Array<Running> = []
beforeAll(async () => {
  mock = await startMock()
}, 60_000)
afterAll(async () => {
  for (const started of listeners) started.child.kill("SIGKILL")
  await mock?.close()
})

const createAndPay = async (orderId: string) => {
  const ring = await KeyRing.importSigners(NodeCrypto, { 1: testMerchant.privateKeyPem() })
  const body = new TextEncoder().encode(JSON.stringify({ orderId, amount: "3.00", currency: "USD" }))
  const headers = await RequestSigning.sign(ring, {
    method: "POST",
    path: Wire.CREATE_ORDER_PATH,
    appKey: testMerchant.appKey,
    timestamp: Date.now(),
    body
  })
  const created = await fetch(`${mock.url}${Wire.CREATE_ORDER_PATH}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body
  }).then((r) => r.json())
  await fetch(`${mock.url}/dev/orders/${created.data.orderSn}/pay`, { method: "POST" })
  return created.data.orderSn as string
}

describe("pc listen", () => {
  it("skips events outside --events and refuses a forged callback", async () => {
    const env = { PC_CONFIG_DIR: freshConfigDir(), PC_BASE_URL: mock.url, PC_APP_KEY: testMerchant.appKey }
    const listener = pcBackground(["listen", "--events", "order.failed", "--json"], { env })
    listeners.push(listener)
    const ready = JSON.parse(await listener.waitForLine((l) => l.includes('"type":"ready"'), "ready"))
    expect(ready.environment).toBe("sandbox")

    const orderSn = await createAndPay("LISTEN-1")
    const skipped = JSON.parse(await listener.waitForLine((l) => l.includes(orderSn), "the order.paid callback"))
    expect(skipped).toMatchObject({ verdict: "skipped", eventType: "order.paid", answered: 200 })

    const forger = await Testing.generatePlatformKey()
    const forged = await Testing.signCallback({
      appKey: testMerchant.appKey,
      platformPrivateKeyPem: forger.privateKeyPem,
      event: Testing.callbackEvent({ eventType: "order.failed", orderSn: "FORGED" })
    })
    const answer = await fetch(ready.url, { method: "POST", headers: forged.headers, body: forged.body })
    expect(answer.status).toBe(401)
    const refused = JSON.parse(await listener.waitForLine((l) => l.includes('"verdict":"refused"'), "the refusal"))
    expect(refused).toMatchObject({ reason: "BadSignature", keyVersion: "1", answered: 401, eventType: null })
  }, 180_000)

  it("puts the notify URL back as it was when it ends on Ctrl-C", async () => {
    const merchantOf = async () =>
      (
        (await (await fetch(`${mock.url}/dev/merchants/${testMerchant.appKey}`)).json()) as {
          data: { notifyUrl: string | null }
        }
      ).data.notifyUrl
    const own = "http://127.0.0.1:9/the-merchants-own-endpoint"
    await fetch(`${mock.url}/dev/merchants/${testMerchant.appKey}/notify-url`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ notifyUrl: own })
    })
    const env = { PC_CONFIG_DIR: freshConfigDir(), PC_BASE_URL: mock.url, PC_APP_KEY: testMerchant.appKey }
    const run = pcBackground(["listen"], { env })
    listeners.push(run)
    await run.waitForOutput(/notify URL set to (\S+)/, "ready")
    expect(await merchantOf()).not.toBe(own)

    run.child.kill("SIGINT")
    expect(await run.exited).toBe(0)
    expect(await merchantOf()).toBe(own)
    expect(run.stderr()).toContain(`notify URL put back to ${own}`)
  }, 180_000)
})
