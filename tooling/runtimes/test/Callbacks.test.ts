// The Promise facade in Bun (Bun.serve), Deno (Deno.serve) and workerd: one worker bundle of
// `@pc/client/promise`, served by each runtime, creates orders that a production mock accepts
// (signed there with WebCrypto), receives the mock's real callbacks and verifies them with the
// Fetch handler and with `verifyCallbackRequest`; a re-serialised body is refused.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { CallbackEvent } from "@pc/core/Wire"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundle } from "../src/Bundle.js"
import { runtimes, type Served, serve } from "../src/Runtime.js"
import type { CallbacksConfig, Refusal } from "../src/workers/Callbacks.js"
import {
  captureCallback,
  type MockMerchant,
  payOrderTo,
  platformKeyPems,
  resend,
  reserialised,
  nextOrderId,
  startMockMerchant,
  TEST_MERCHANT_APP_KEY,
  testMerchantPrivateKeyPem
} from "./support/RealCallbacks.js"

const dir = mkdtempSync(join(tmpdir(), "pc-runtimes-callbacks-"))
const { path: modulePath } = await bundle("Callbacks.ts", join(dir, "callbacks.mjs"))

let merchant: MockMerchant
let config: CallbacksConfig

beforeAll(async () => {
  // Production checks every signature, so an order accepted there was signed right in the runtime.
  merchant = await startMockMerchant("production")
  config = {
    environment: "production",
    baseUrl: merchant.mock.url,
    appKey: TEST_MERCHANT_APP_KEY,
    privateKeyPem: testMerchantPrivateKeyPem(),
    platformKeys: await platformKeyPems(merchant.mock)
  }
})
afterAll(async () => {
  await merchant?.close()
  rmSync(dir, { recursive: true, force: true })
})

for (const runtime of runtimes()) {
  describe(`${runtime.name} ${runtime.version}`, () => {
    let served: Served
    beforeAll(async () => {
      served = await serve(runtime, modulePath, { CONFIG: JSON.stringify(config) })
      const here = (await (await fetch(`${served.url}/runtime`)).json()) as { runtime: string }
      expect(here.runtime).toBe(runtime.name === "workerd" ? "workerd" : `${runtime.name} ${runtime.version}`)
    })
    afterAll(async () => {
      await served?.close()
    })
    const eventsSeen = async () => (await (await fetch(`${served.url}/events`)).json()) as ReadonlyArray<CallbackEvent>

    it("creates an order signed in the runtime, which production accepts, and verifies its callback", async () => {
      const orderId = nextOrderId()
      const created = await fetch(`${served.url}/orders`, { method: "POST", body: JSON.stringify({ orderId }) })
      expect(created.status, served.output()).toBe(200)
      const order = (await created.json()) as { orderSn: string; outerOrder: string; h5Url: string }
      expect(order.outerOrder).toBe(orderId)
      expect(order.h5Url).toBe(`${merchant.mock.url}/h5/checkout/${order.orderSn}`)
      const { delivery } = await payOrderTo(merchant, `${served.url}/callbacks`, order)
      expect(
        delivery.attempts.map((a) => a.httpStatus),
        served.output()
      ).toEqual([200])
      expect(await eventsSeen()).toContainEqual(
        expect.objectContaining({ eventType: "order.paid", orderSn: order.orderSn })
      )
    })

    it.each(["/callbacks", "/verify"])(
      "%s receives a real order.paid callback from the mock, verifies it and answers 200",
      async (path) => {
        const { orderSn, outerOrder, delivery } = await payOrderTo(merchant, `${served.url}${path}`)
        expect(
          delivery.attempts.map((a) => a.httpStatus),
          served.output()
        ).toEqual([200])
        expect(delivery.status).toBe("delivered")
        expect(await eventsSeen()).toContainEqual(
          expect.objectContaining({ eventType: "order.paid", orderSn, outerOrder, amount: "10.00", status: "PAID" })
        )
      }
    )

    it("refuses the same callback re-serialised, saying the raw body is needed; the bytes as sent pass once", async () => {
      const callback = await captureCallback(merchant)
      const before = (await eventsSeen()).length

      const refused = await resend(`${served.url}/verify`, callback, reserialised(callback.body))
      expect(refused.status).toBe(401)
      const refusal = (await refused.json()) as Refusal
      expect(refusal).toMatchObject({ code: "ERR_PC_CALLBACK_VERIFICATION", reason: "BadSignature" })
      expect(refusal.message).toContain("did you pass the raw body?")

      const handled = await resend(`${served.url}/callbacks`, callback, reserialised(callback.body))
      expect(handled.status).toBe(401)
      expect(await handled.json()).toEqual({
        code: "signError",
        msg: "signature verification failed: BadSignature",
        data: null
      })
      expect((await eventsSeen()).length).toBe(before)

      // The refusal was the re-serialisation: the untouched bytes verify, and only once.
      expect((await resend(`${served.url}/verify`, callback)).status).toBe(200)
      const again = await resend(`${served.url}/verify`, callback)
      expect(((await again.json()) as Refusal).reason).toBe("Replayed")
      expect((await eventsSeen()).length).toBe(before + 1)
    })
  })
}
