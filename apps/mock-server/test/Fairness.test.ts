// Fairness between merchants (CONTRACT.md "Callbacks"): one merchant's endpoint hangs for 60
// deliveries; another merchant's callback still arrives, before any hanging one is released.
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { Schema } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { START_IN_FLIGHT_PER_MERCHANT } from "../src/callbacks/EndpointSpeeds.js"
import { ATTEMPT_WITHOUT_OUTCOME } from "../src/store/DeliveryStore.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { deliveriesOf, platformVerifiers, verifiedEvent } from "./support/receiver.js"
import { findSecrets } from "./support/secrets.js"
import { type Receiver, startReceiver } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

const HANGING = 60
const logs: Array<string> = []
let mock: Mock
let hanging: Receiver
let prompt: Receiver

beforeAll(async () => {
  // An attempt may take a minute: the hanging deliveries are not released while the test runs.
  mock = await startMock(
    { environment: "production", callbackTimeoutMs: 60_000 },
    { logSink: (line) => logs.push(line) }
  )
  hanging = await startReceiver("hang")
  prompt = await startReceiver(200)
})
afterAll(async () => {
  await hanging?.close()
  await prompt?.close()
  await mock?.close()
  expect(findSecrets(logs)).toEqual([])
})

const paidOrder = async (options: Parameters<typeof createOrder>[2], orderId: string) => {
  const created = await createOrder(mock.url, JSON.stringify({ orderId, amount: "1.00", currency: "USD" }), options)
  expect(created.json.code).toBe("SUCCESS")
  const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
  expect((await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)).json.code).toBe("SUCCESS")
  return orderSn
}

it(`delivers another merchant's callback while one merchant's endpoint hangs on ${HANGING} deliveries`, async () => {
  const pair = await KeyPair.generate(2048)
  const made = await dev<{ appKey: string }>(mock.url, "POST", "/dev/merchants", {
    publicKeyPem: pair.publicKeyPem,
    notifyUrl: hanging.url
  })
  const slowAppKey = made.json.data!.appKey
  const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
  const slowOrders: Array<string> = []
  for (let i = 0; i < HANGING; i++) slowOrders.push(await paidOrder({ appKey: slowAppKey, signer }, `slow-${i}`))
  // The slow merchant's endpoint now holds as many attempts open as it is allowed.
  await hanging.waitFor(START_IN_FLIGHT_PER_MERCHANT)

  expect(
    (await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: prompt.url })).json
      .code
  ).toBe("SUCCESS")
  const started = performance.now()
  const orderSn = await paidOrder({}, "prompt-1")
  const [arrived] = await prompt.waitFor(1, undefined, 30_000)
  const latencyMs = arrived!.receivedAtPerf - started
  console.log(
    `fairness: the other merchant's callback arrived ${latencyMs.toFixed(1)} ms after its order was paid, behind ${HANGING} hanging deliveries`
  )

  // The signal: it arrived while every hanging attempt was still open, none of them released.
  expect(hanging.received.length).toBeLessThanOrEqual(START_IN_FLIGHT_PER_MERCHANT)
  for (const slow of slowOrders.slice(0, START_IN_FLIGHT_PER_MERCHANT)) {
    const [delivery] = await deliveriesOf(mock.url, slow)
    for (const attempt of delivery!.attempts) expect(attempt.error).toBe(ATTEMPT_WITHOUT_OUTCOME)
  }
  const event = await verifiedEvent(arrived!, TEST_MERCHANT_APP_KEY, await platformVerifiers(mock.url))
  expect(event.event.orderSn).toBe(orderSn)
}, 60_000)
