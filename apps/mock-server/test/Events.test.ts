// GET /dev/events over real HTTP: a Server-Sent Events stream with one JSON object per event, as
// orders are created and paid, callbacks attempted, keys rotated and requests answered.
import * as Wire from "@pc/core/Wire"
import { Chunk, Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MockEvents } from "../src/events/MockEvents.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev, signCreateOrder, testMerchantSigner } from "./support/mock.js"
import { type Receiver, startReceiver, listenEvents as listen } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

let mock: Mock
let receiver: Receiver

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  receiver = await startReceiver()
  await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: receiver.url })
})
afterAll(async () => {
  await mock?.close()
  await receiver?.close()
})

describe("GET /dev/events", () => {
  it("streams order.created, request (with the signature verdict), order.moved and delivery.attempted", async () => {
    const stream = await listen(mock.url)
    const created = await createOrder(
      mock.url,
      JSON.stringify({ orderId: `sse-${Date.now()}`, amount: 5, currency: "USD" })
    )
    const { orderSn } = created.json.data as Wire.CreateOrderResult
    expect(await stream.next((e) => e.type === "order.created" && e.orderSn === orderSn)).toMatchObject({
      appKey: TEST_MERCHANT_APP_KEY
    })
    const request = await stream.next((e) => e.type === "request" && e.path === Wire.CREATE_ORDER_PATH)
    expect(request).toMatchObject({
      method: "POST",
      status: 200,
      signature: { verdict: "valid", cause: null, likelyCause: null }
    })
    expect(typeof request.requestId).toBe("string")
    expect(request.requestId).toBe(created.headers.get("x-request-id"))
    await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)
    expect(await stream.next((e) => e.type === "order.moved" && e.orderSn === orderSn)).toMatchObject({
      status: "PAID"
    })
    expect(await stream.next((e) => e.type === "delivery.attempted" && e.orderSn === orderSn)).toMatchObject({
      eventType: "order.paid"
    })
    await stream.close()
  })

  it("says why a refused create-order was refused", async () => {
    const stream = await listen(mock.url)
    const refused = await createOrder(mock.url, JSON.stringify({ orderId: "sse-bad", amount: 5, currency: "USD" }), {
      signature: "AAAA"
    })
    expect(refused.status).toBe(401)
    const request = await stream.next((e) => e.type === "request" && e.status === 401)
    expect(request.signature).toMatchObject({ verdict: "refused", cause: refused.json.msg })
    await stream.close()
  })

  it("carries the likely cause of a signature that does not match: a body re-serialised after signing", async () => {
    const stream = await listen(mock.url)
    const compact = JSON.stringify({ orderId: `sse-reser-${Date.now()}`, amount: 5, currency: "USD" })
    const timestamp = Date.now()
    const signature = await signCreateOrder(await testMerchantSigner(), {
      appKey: TEST_MERCHANT_APP_KEY,
      timestamp: String(timestamp),
      body: compact
    })
    const resent = JSON.stringify(JSON.parse(compact), null, 2)
    const refused = await createOrder(mock.url, resent, { signature, timestamp })
    expect(refused.status).toBe(401)
    const request = await stream.next(
      (e) => e.type === "request" && e.requestId === refused.headers.get("x-request-id")
    )
    expect(request.signature).toMatchObject({ verdict: "refused", cause: refused.json.msg })
    expect((request.signature as { likelyCause: string }).likelyCause).toMatch(/re-serialised/)
    await stream.close()
  })

  it("streams platformKey.rotated", async () => {
    const stream = await listen(mock.url)
    const rotated = await dev<{ version: number }>(mock.url, "POST", "/dev/platform-keys/rotate")
    expect(await stream.next((e) => e.type === "platformKey.rotated")).toMatchObject({
      version: rotated.json.data!.version
    })
    await stream.close()
  })
})

describe("a reader that stops reading", () => {
  it("costs the mock a bounded buffer: its oldest unread events are dropped, the newest kept", async () => {
    const received = await Effect.runPromise(
      Effect.gen(function* () {
        const events = yield* MockEvents
        const stream = yield* events.subscribe
        // Nothing reads while 5 000 events are published.
        for (let n = 0; n < 5_000; n++) {
          yield* events.publish({ type: "platformKey.rotated", version: n })
        }
        yield* events.publish({ type: "platformKey.rotated", version: -1 })
        const read = yield* Stream.runCollect(
          Stream.takeUntil(stream, (event) => event.type === "platformKey.rotated" && event.version === -1)
        )
        return Chunk.toReadonlyArray(read).map((event) => (event.type === "platformKey.rotated" ? event.version : NaN))
      }).pipe(Effect.scoped, Effect.provide(MockEvents.layer))
    )
    expect(received.length).toBeLessThanOrEqual(1_024)
    expect(received.at(-1)).toBe(-1)
    expect(received.at(-2)).toBe(4_999)
    expect(received[0]).toBeGreaterThan(0)
  })
})
