// Real callbacks from the mock for the runtime and framework tests: the mock fixture of
// @pc/test-support (one copy of it), plus the two moves every receiver test makes: an order paid with its
// callback sent to a notify URL, and a callback captured as it arrived to replay it, changed or not.
import { createPaymentClient, type PaymentConnectClient } from "@pc/client/promise"
import type { Environment } from "@pc/core/Environment"
import { type CapturedCallback, headersOf, readBody, startEndpoint } from "@pc/test-support"
import {
  type DeliveryView,
  type Mock,
  pay,
  setNotifyUrl,
  startMock,
  TEST_MERCHANT_APP_KEY,
  testMerchantPrivateKeyPem,
  waitForDelivery
} from "@pc/test-support/mock"

export { freePort } from "@pc/test-support"
export { platformKeyPems, testMerchantPrivateKeyPem } from "@pc/test-support/mock"
export { type CapturedCallback, type DeliveryView, type Mock, TEST_MERCHANT_APP_KEY }

/** A mock in this process (sandbox unless told) and a Promise client of its test merchant. */
export interface MockMerchant {
  readonly mock: Mock
  readonly client: PaymentConnectClient
  close(): Promise<void>
}

export const startMockMerchant = async (environment: Environment = "sandbox"): Promise<MockMerchant> => {
  const mock = await startMock({ environment })
  const client = await createPaymentClient({
    environment,
    baseUrl: mock.url,
    appKey: TEST_MERCHANT_APP_KEY,
    privateKeys: { 1: testMerchantPrivateKeyPem() }
  })
  return { mock, client, close: () => mock.close() }
}

let orders = 0

/** An order id no other test of this process uses. */
export const nextOrderId = (): string => `RT-${Date.now()}-${++orders}`

/**
 * Points the test merchant's notify URL at `notifyUrl`, pays `order` (a new one unless given) through
 * /dev and waits for the first answered attempt of its callback: resolves with the order and the
 * delivery.
 */
export const payOrderTo = async (
  { mock, client }: MockMerchant,
  notifyUrl: string,
  order?: { readonly orderSn: string; readonly outerOrder: string }
): Promise<{ readonly orderSn: string; readonly outerOrder: string; readonly delivery: DeliveryView }> => {
  await setNotifyUrl(mock, TEST_MERCHANT_APP_KEY, notifyUrl)
  const { orderSn, outerOrder } =
    order ?? (await client.createOrder({ orderId: nextOrderId(), amount: "10.00", currency: "USD" }))
  await pay(mock, orderSn)
  const delivery = await waitForDelivery(
    mock,
    orderSn,
    // The mock records an attempt just before sending it, with no status and the error "no outcome
    // recorded: ..." until its outcome replaces them: that row is not an answer yet.
    (d) =>
      d.attempts.some((a) => a.httpStatus !== null || (a.error !== null && !a.error.startsWith("no outcome recorded"))),
    "answered"
  )
  return { orderSn, outerOrder, delivery }
}

/** Pays an order with its callback sent to a receiver here, which keeps the request exactly as it came. */
export const captureCallback = async (merchant: MockMerchant): Promise<CapturedCallback> => {
  let captured: CapturedCallback | undefined
  const receiver = await startEndpoint(async (req, res) => {
    captured = { headers: headersOf(req), body: await readBody(req) }
    res.writeHead(200, { "content-type": "application/json" }).end('{"code":"SUCCESS","msg":null,"data":null}')
  })
  try {
    await payOrderTo(merchant, receiver.url)
  } finally {
    await receiver.close()
  }
  if (captured === undefined) throw new Error("the mock answered no callback to the capturing receiver")
  return captured
}

/** The same event as a framework that parsed the JSON and wrote it out again would pass it on. */
export const reserialised = (body: Uint8Array): string =>
  JSON.stringify(JSON.parse(new TextDecoder().decode(body)), null, 2)

/** Sends a captured callback (or a changed body with its headers) to `url` as the mock would. */
export const resend = (url: string, callback: CapturedCallback, body: string | Buffer = callback.body) => {
  // The framing headers are the sender's own; fetch sets them for the new body.
  const headers = Object.fromEntries(
    Object.entries(callback.headers).filter(
      ([name]) => !["content-length", "host", "connection", "keep-alive", "transfer-encoding"].includes(name)
    )
  )
  return fetch(url, { method: "POST", headers, body: typeof body === "string" ? body : new Uint8Array(body) })
}
