// The client against the REAL mock server (apps/mock-server, started in this process) in each
// environment: orders created with the test merchant's published key, every error the mock can
// produce through the client, merchant key rotation, and the mock's signed callbacks received by a
// real node:http endpoint through the Node and Fetch adapters (re-serialised bodies, keys of the
// wrong environment, platform key rotation, replays). Then the same from the Promise facade.
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Canonical, type Crypto, type Environment, Headers, KeyRing } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { Duration, Effect, Either, Logger, Redacted } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import * as Callback from "../src/Callback.js"
import * as CallbackHandler from "../src/CallbackHandler.js"
import * as PaymentClient from "../src/PaymentClient.js"
import type * as PaymentClientError from "../src/PaymentClientError.js"
import * as PaymentConnect from "../src/Promise.js"
import { type CapturedCallback, headersOf, readBody, startEndpoint, until } from "@pc/test-support"
import {
  devData,
  type Mock,
  type OrderView,
  type PlatformKeyView,
  pay,
  platformKeyPems,
  setNotifyUrl,
  startMock,
  TEST_MERCHANT_APP_KEY,
  testMerchantPrivateKeyPem,
  waitForDelivery
} from "@pc/test-support/mock"

const APP_KEY = TEST_MERCHANT_APP_KEY
const TIMEOUT = 60_000
/** How the tests poll what a receiver got: every 20 ms, for 30 s at most. */
const POLL = { timeoutMs: 30_000, intervalMs: 20 }

let merchantPem: string
let merchantSigner: Crypto.Signer
/** The test merchant's key version 1, the one the mock knows. */
let merchantRing: KeyRing.KeyRing<Crypto.Signer>
/** A key pair the mock has never seen. */
let stranger: KeyPair.PemKeyPair
/** The key pair uploaded as version 2 in the rotation tests. */
let second: KeyPair.PemKeyPair

beforeAll(async () => {
  merchantPem = testMerchantPrivateKeyPem()
  merchantSigner = await NodeCrypto.importPrivateKey(merchantPem)
  merchantRing = KeyRing.make({ 1: merchantSigner })
  ;[stranger, second] = await Promise.all([KeyPair.generate(), KeyPair.generate()])
}, TIMEOUT)

let sequence = 0
const newOrderId = (label: string) => `${label}-${process.pid}-${++sequence}`

// ---------------------------------------------------------------------------------------------
// The Effect client: construction, a recorder of what went over the wire, captured logs

interface LogLine {
  readonly level: string
  readonly message: string
}

/** A logger that keeps the lines instead of printing them. */
const captureLogs = () => {
  const lines: Array<LogLine> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      const parts: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
      lines.push({ level: logLevel.label, message: parts.map(String).join(" ") })
    })
  )
  return { lines, layer }
}

const SANDBOX_WARNING = /production would refuse this request's signature \(X-R-Signature-Check: invalid\)/

/** Records each request as signed (key version) and each answer's headers, from inside the client's HttpClient. */
const recorder = () => {
  const requests: Array<{ readonly keyVersion: string | undefined }> = []
  const responses: Array<{
    readonly status: number
    readonly signatureCheck: string | undefined
    readonly retryAfter: string | undefined
    readonly requestId: string | undefined
  }> = []
  // transformClient is applied after the client's signer: these see the request exactly as sent.
  const transform = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    client.pipe(
      HttpClient.mapRequest((request) => {
        requests.push({ keyVersion: request.headers["x-r-key-version"] })
        return request
      }),
      HttpClient.tap((response) =>
        Effect.sync(() => {
          responses.push({
            status: response.status,
            signatureCheck: response.headers["x-r-signature-check"],
            retryAfter: response.headers["retry-after"],
            requestId: response.headers["x-request-id"]
          })
        })
      )
    )
  return { requests, responses, transform }
}

/**
 * Replaces the body the client signed by `body` and signs that with the test merchant's key: a way
 * past the client's local validation to the service's own (transformClient runs after the signer).
 */
const resignedWith =
  (body: string) =>
  (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.mapRequestEffect(client, (request) =>
      Effect.promise(async () => {
        const timestamp = String(Date.now())
        const signature = await merchantSigner.sign(
          Canonical.requestStringToSign({
            method: "POST",
            path: Wire.CREATE_ORDER_PATH,
            appKey: APP_KEY,
            timestamp,
            body
          })
        )
        return request.pipe(
          HttpClientRequest.bodyText(body, "application/json"),
          HttpClientRequest.setHeaders({
            [Headers.RequestHeaders.timestamp]: timestamp,
            [Headers.RequestHeaders.keyVersion]: "1",
            [Headers.RequestHeaders.signature]: signature
          })
        )
      })
    )

const makeClient = (
  mock: Mock,
  options: {
    readonly keyRing?: KeyRing.KeyRing<Crypto.Signer>
    readonly retry?: Partial<PaymentClient.RetryPolicy>
    readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
  } = {}
): Promise<PaymentClient.Service> =>
  Effect.runPromise(
    PaymentClient.make({
      environment: mock.environment,
      baseUrl: mock.url,
      appKey: APP_KEY,
      keyRing: options.keyRing ?? merchantRing,
      timeout: 5_000,
      retry: { baseDelay: 20, maxDelay: 200, deadline: 5_000, ...options.retry },
      transformClient: options.transformClient
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

type Result = Either.Either<Wire.CreateOrderResult, PaymentClientError.PaymentClientError>

/** Runs createOrder with the logs captured. */
const create = async (
  client: PaymentClient.Service,
  input: PaymentClient.CreateOrderInput
): Promise<{ readonly result: Result; readonly logs: ReadonlyArray<LogLine> }> => {
  const logs = captureLogs()
  const result = await Effect.runPromise(Effect.either(client.createOrder(input)).pipe(Effect.provide(logs.layer)))
  return { result, logs: logs.lines }
}

const succeeded = (result: Result): Wire.CreateOrderResult => {
  if (Either.isLeft(result)) throw new Error(`expected an order, got ${result.left._tag}: ${result.left.message}`)
  return result.right
}

const failedWith = <Tag extends PaymentClientError.PaymentClientError["_tag"]>(
  result: Result,
  tag: Tag
): Extract<PaymentClientError.PaymentClientError, { readonly _tag: Tag }> => {
  if (Either.isRight(result)) throw new Error(`expected ${tag}, got the order ${result.right.orderSn}`)
  expect(result.left._tag).toBe(tag)
  return result.left as Extract<PaymentClientError.PaymentClientError, { readonly _tag: Tag }>
}

/** Creates an order with `client` and pays it through /dev, which queues its order.paid callback. */
const createAndPay = async (
  mock: Mock,
  client: PaymentClient.Service,
  amount: string | number = "25.50",
  currency = "EUR"
): Promise<{ readonly orderId: string; readonly orderSn: string }> => {
  const orderId = newOrderId("cb")
  const order = succeeded((await create(client, { orderId, amount, currency })).result)
  expect((await pay(mock, order.orderSn)).status).toBe("PAID")
  return { orderId, orderSn: order.orderSn }
}

// ---------------------------------------------------------------------------------------------
// The merchant's side of callbacks: verifiers and receivers

const pemsFor = (environment: Environment.Environment, pems: Record<number, string>): Callback.PlatformKeyPems => {
  const out: { [E in Environment.Environment]?: Record<number, string> } = {}
  out[environment] = pems
  return out
}

const verifierOf = (environment: Environment.Environment, platformKeys: Callback.PlatformKeyPems) =>
  Effect.runPromise(
    Effect.flatMap(Callback.importPlatformKeys(NodeCrypto, platformKeys), (rings) =>
      Callback.make({ environment, appKey: APP_KEY, platformKeys: rings })
    )
  )

/** A verifier that also notes the reason of each refusal. */
const watched = (
  verifier: Callback.Service,
  refusals: Array<Callback.CallbackVerificationErrorReason>
): Callback.Service => ({
  ...verifier,
  verify: (input) =>
    verifier.verify(input).pipe(Effect.tapError((error) => Effect.sync(() => refusals.push(error.reason))))
})

const quiet = Logger.replace(Logger.defaultLogger, Logger.none)

/** The Node / Express adapter as a node:http handler; `verifier` is read per request (it may change). */
const nodeHandler =
  (verifier: () => Callback.Service, events: Array<Wire.CallbackEvent>) =>
  (req: IncomingMessage, res: ServerResponse) =>
    Effect.runPromise(
      CallbackHandler.handleNodeRequest(req, res, (event) => Effect.sync(() => events.push(event))).pipe(
        Effect.provideService(Callback.CallbackVerifier, verifier()),
        Effect.provide(quiet)
      )
    )

const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"])

/** The Fetch adapter behind node:http: the raw body into a Fetch `Request`, the `Response` back out. */
const fetchHandler =
  (verifier: () => Callback.Service, events: Array<Wire.CallbackEvent>) =>
  async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req)
    const headers = Object.entries(headersOf(req)).filter(([name]) => !HOP_BY_HOP.has(name))
    const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, { method: req.method ?? "POST", headers, body })
    const response = await Effect.runPromise(
      CallbackHandler.handleRequest(request, (event) => Effect.sync(() => events.push(event))).pipe(
        Effect.provideService(Callback.CallbackVerifier, verifier()),
        Effect.provide(quiet)
      )
    )
    res.writeHead(response.status, Object.fromEntries(response.headers))
    res.end(await response.text())
  }

const eventFor = (events: ReadonlyArray<Wire.CallbackEvent>, orderSn: string) =>
  until(() => events.find((e) => e.orderSn === orderSn), `the order.paid event of ${orderSn} at the receiver`, POLL)

const CALLBACK_HEADERS = ["content-type", "x-r-ts", "x-r-key-version", "x-r-signature"]

const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error("expected a rejection")
    },
    (error: unknown) => error
  )

describe.each(["sandbox", "production", "gray"] as const)("against the %s mock", (environment) => {
  const checksSignatures = environment !== "sandbox"
  let mock: Mock
  let client: PaymentClient.Service
  let platformPems: Record<number, string>

  beforeAll(async () => {
    mock = await startMock({ environment })
    client = await makeClient(mock)
    platformPems = await platformKeyPems(mock)
  }, TIMEOUT)
  afterAll(async () => {
    await mock?.close()
  })

  describe("create order", () => {
    it("with the amount as a string and as a number; h5Url is the absolute checkout URL", async () => {
      const byString = newOrderId("str")
      const first = await create(client, { orderId: byString, amount: "10.00", currency: "USD" })
      const order = succeeded(first.result)
      expect(order.outerOrder).toBe(byString)
      expect(order.h5Url).toBe(`${mock.url}/h5/checkout/${encodeURIComponent(order.orderSn)}`)
      // A valid signature in every environment: sandbox says so and the client has nothing to warn about.
      expect(first.logs.filter((line) => line.level === "WARN")).toEqual([])

      const page = await fetch(order.h5Url)
      expect(page.status).toBe(200)
      const html = await page.text()
      expect(html).toContain(byString)
      expect(html).toContain("10.00")

      for (const [amount, currency, stored] of [
        [10.5, "USD", "10.50"],
        [1200, "JPY", "1200"],
        [1.5, "KWD", "1.500"],
        ["0.01", "USD", "0.01"]
      ] as const) {
        const orderId = newOrderId("num")
        const created = succeeded((await create(client, { orderId, amount, currency })).result)
        expect(new URL(created.h5Url).href).toBe(created.h5Url)
        const view = await devData<OrderView>(mock, "GET", `/dev/orders/${encodeURIComponent(created.orderSn)}`)
        expect(view).toMatchObject({ orderSn: created.orderSn, outerOrder: orderId, amount: stored, currency })
        expect(view.status).toBe("CREATED")
      }
    })

    it("the same orderId, amount and currency again is the same order (a safe retry)", async () => {
      const orderId = newOrderId("idem")
      const first = succeeded((await create(client, { orderId, amount: "42.00", currency: "USD" })).result)
      const again = succeeded((await create(client, { orderId, amount: "42.00", currency: "USD" })).result)
      const asNumber = succeeded((await create(client, { orderId, amount: 42, currency: "USD" })).result)
      expect(again).toEqual(first)
      expect(asNumber.orderSn).toBe(first.orderSn)
    })

    it("DuplicateOrder: the same orderId with another amount or currency, not retried", async () => {
      const orderId = newOrderId("dup")
      const rec = recorder()
      const recording = await makeClient(mock, { transformClient: rec.transform })
      succeeded((await create(recording, { orderId, amount: "5.00", currency: "USD" })).result)
      for (const other of [
        { amount: "6.00", currency: "USD" },
        { amount: "5.00", currency: "EUR" }
      ]) {
        const before = rec.requests.length
        const error = failedWith((await create(recording, { orderId, ...other })).result, "DuplicateOrder")
        expect(error.orderId).toBe(orderId)
        expect(error.status).toBe(409)
        expect(error.requestId).toBeDefined()
        expect(error.message).toContain(orderId)
        expect(rec.requests.length - before).toBe(1)
      }
    })

    it("InvalidRequest: refused locally before sending, and the service's paramError with its field", async () => {
      const rec = recorder()
      const recording = await makeClient(mock, { transformClient: rec.transform })
      const local = failedWith(
        (await create(recording, { orderId: "x".repeat(65), amount: "1.00", currency: "USD" })).result,
        "InvalidRequest"
      )
      expect(local).toMatchObject({ source: "local", code: "paramError", field: "orderId" })
      expect(rec.requests).toHaveLength(0)

      // The client checks with the service's own rules (@pc/core Wire), so no input it lets through is
      // refused by the service: reach the service's validation with bodies swapped in after signing.
      const cases: ReadonlyArray<readonly [string, string | undefined]> = [
        [JSON.stringify({ orderId: "x".repeat(65), amount: "1.00", currency: "USD" }), "orderId"],
        [JSON.stringify({ orderId: "ok", amount: "1.001", currency: "USD" }), "amount"],
        [JSON.stringify({ orderId: "ok", amount: "1.00", currency: "usd" }), "currency"],
        [JSON.stringify({ orderId: "ok", amount: "1.00" }), "currency"],
        ["[]", undefined]
      ]
      for (const [body, field] of cases) {
        const bypass = recorder()
        const swapped = await makeClient(mock, {
          transformClient: (c) => bypass.transform(resignedWith(body)(c))
        })
        const { result, logs } = await create(swapped, { orderId: "placeholder", amount: "1.00", currency: "USD" })
        const error = failedWith(result, "InvalidRequest")
        expect(error).toMatchObject({ source: "server", code: "paramError", status: 400, field })
        expect(error.serverMessage).toBeTruthy()
        expect(bypass.requests).toHaveLength(1)
        // The swapped body is correctly signed: sandbox reports it valid, nothing is logged.
        expect(bypass.responses[0]!.signatureCheck).toBe(checksSignatures ? undefined : "valid")
        expect(logs.filter((line) => line.level === "WARN")).toEqual([])
      }
    })

    it(
      checksSignatures
        ? "SignatureRejected: signed with a key the mock never saw, claiming version 1"
        : "a signature production would refuse succeeds in sandbox, with X-R-Signature-Check: invalid logged as a warning",
      async () => {
        const rec = recorder()
        const wrong = await makeClient(mock, {
          keyRing: KeyRing.make({ 1: await NodeCrypto.importPrivateKey(stranger.privateKeyPem) }),
          transformClient: rec.transform
        })
        const orderId = newOrderId("wrong-key")
        const { result, logs } = await create(wrong, { orderId, amount: "3.00", currency: "USD" })
        expect(rec.requests).toEqual([{ keyVersion: "1" }])
        if (checksSignatures) {
          const error = failedWith(result, "SignatureRejected")
          expect(error.status).toBe(401)
          expect(error.keyVersion).toBe(1)
          expect(error.serverMessage).toMatch(/^signature verification failed/)
          expect(error.hint).toMatch(/private key of version 1 matches the public key uploaded as version 1/)
          expect(error.requestId).toBe(rec.responses[0]!.requestId)
          expect(rec.responses[0]!.signatureCheck).toBeUndefined()
        } else {
          const order = succeeded(result)
          expect((await devData<OrderView>(mock, "GET", `/dev/orders/${order.orderSn}`)).outerOrder).toBe(orderId)
          expect(rec.responses[0]!.signatureCheck).toBe("invalid")
          const warnings = logs.filter((line) => line.level === "WARN")
          expect(warnings).toHaveLength(1)
          expect(warnings[0]!.message).toMatch(SANDBOX_WARNING)
          expect(warnings[0]!.message).toContain("key of version 1")
        }
      }
    )

    it(
      "RateLimited: Retry-After past the retry deadline fails at once, with retryAfter",
      async () => {
        const limited = await startMock({ environment, rateLimitPerMinute: 2 })
        try {
          const rec = recorder()
          const impatient = await makeClient(limited, { retry: { deadline: 500 }, transformClient: rec.transform })
          // At most 2 per fixed minute window: 5 calls hit the limit even across a window boundary.
          let limitedError: PaymentClientError.RateLimited | undefined
          for (let i = 0; i < 5 && limitedError === undefined; i++) {
            const before = rec.requests.length
            const { result } = await create(impatient, { orderId: newOrderId("rate"), amount: "1.00", currency: "USD" })
            if (Either.isLeft(result)) {
              limitedError = failedWith(result, "RateLimited")
              // Retry-After (1 to 60 s) ends past the 500 ms deadline: no second attempt. That no wait
              // is started either is shown on the TestClock in PaymentClient.test.ts ("fails at once").
              expect(rec.requests.length - before).toBe(1)
            }
          }
          if (limitedError === undefined) throw new Error("5 calls at 2 per minute were never rate limited")
          expect(limitedError.status).toBe(429)
          const retryAfter = limitedError.retryAfter
          if (retryAfter === undefined) throw new Error("RateLimited without retryAfter")
          const ms = Duration.toMillis(retryAfter)
          expect(ms).toBeGreaterThan(500)
          expect(ms).toBeLessThanOrEqual(60_000)
          expect(ms / 1000).toBe(Number(rec.responses.at(-1)!.retryAfter))
        } finally {
          await limited.close()
        }
      },
      TIMEOUT
    )

    it(
      "merchant key rotation: v2 uploaded and current, v1 still accepted, then v1 disabled",
      async () => {
        const rotating = await startMock({ environment })
        try {
          const uploaded = await devData<{ readonly keyVersion: number }>(
            rotating,
            "POST",
            `/dev/merchants/${APP_KEY}/keys`,
            { publicKeyPem: second.publicKeyPem }
          )
          expect(uploaded).toEqual({ keyVersion: 2 })
          const v2Signer = await NodeCrypto.importPrivateKey(second.privateKeyPem)
          const ring = KeyRing.withCurrent(KeyRing.add(merchantRing, 2, v2Signer), 2)
          const onV2 = recorder()
          const clientV2 = await makeClient(rotating, { keyRing: ring, transformClient: onV2.transform })
          const onV1 = recorder()
          const clientV1 = await makeClient(rotating, { transformClient: onV1.transform })
          expect(clientV2.keyRing.current).toBe(2)
          expect(clientV2.keyRing.versions).toEqual([1, 2])

          const byV2 = await create(clientV2, { orderId: newOrderId("v2"), amount: "7.00", currency: "USD" })
          succeeded(byV2.result)
          expect(byV2.logs).toEqual([])
          expect(onV2.requests).toEqual([{ keyVersion: "2" }])
          expect(onV2.responses[0]!.signatureCheck).toBe(checksSignatures ? undefined : "valid")
          succeeded((await create(clientV1, { orderId: newOrderId("v1"), amount: "7.00", currency: "USD" })).result)
          expect(onV1.requests).toEqual([{ keyVersion: "1" }])

          // The same ring from PEM, as a deployment would load it.
          const imported = await Effect.runPromise(
            PaymentClient.importKeyRing(
              NodeCrypto,
              { 1: Redacted.make(merchantPem), 2: Redacted.make(second.privateKeyPem) },
              2
            )
          )
          const fromPem = await makeClient(rotating, { keyRing: imported })
          succeeded((await create(fromPem, { orderId: newOrderId("pem"), amount: "7.00", currency: "USD" })).result)

          expect(await devData(rotating, "POST", `/dev/merchants/${APP_KEY}/keys/1/disable`)).toEqual({
            version: 1,
            status: "disabled"
          })
          const merchant = await devData<{ readonly keys: ReadonlyArray<{ version: number; status: string }> }>(
            rotating,
            "GET",
            `/dev/merchants/${APP_KEY}`
          )
          expect(merchant.keys.map((k) => [k.version, k.status])).toEqual([
            [1, "disabled"],
            [2, "active"]
          ])

          const afterDisable = await create(clientV1, {
            orderId: newOrderId("v1-off"),
            amount: "7.00",
            currency: "USD"
          })
          if (checksSignatures) {
            const error = failedWith(afterDisable.result, "SignatureRejected")
            expect(error.keyVersion).toBe(1)
            expect(error.serverMessage).toMatch(/^signature verification failed: .*disabled/)
            expect(error.hint).toMatch(/key version 1 is not an active key/)
            expect(onV1.requests).toHaveLength(2)
          } else {
            succeeded(afterDisable.result)
            expect(onV1.responses.at(-1)!.signatureCheck).toBe("invalid")
            expect(afterDisable.logs.map((l) => l.message)).toEqual([expect.stringMatching(SANDBOX_WARNING)])
          }
          succeeded((await create(clientV2, { orderId: newOrderId("v2-on"), amount: "7.00", currency: "USD" })).result)

          // A version never uploaded.
          const v3 = await makeClient(rotating, { keyRing: KeyRing.make({ 3: v2Signer }) })
          const unknown = await create(v3, { orderId: newOrderId("v3"), amount: "7.00", currency: "USD" })
          if (checksSignatures) {
            const error = failedWith(unknown.result, "SignatureRejected")
            expect(error.serverMessage).toMatch(/key version 3/)
            expect(error.hint).toMatch(/key version 3 is not an active key/)
          } else {
            succeeded(unknown.result)
            expect(unknown.logs.map((l) => l.message)).toEqual([expect.stringMatching(SANDBOX_WARNING)])
          }
        } finally {
          await rotating.close()
        }
      },
      TIMEOUT
    )
  })

  describe("callbacks from the mock", () => {
    it(
      "Node adapter (CallbackHandler.handleNodeRequest): a typed order.paid event; the delivery is delivered",
      async () => {
        const events: Array<Wire.CallbackEvent> = []
        const refusals: Array<Callback.CallbackVerificationErrorReason> = []
        const verifier = watched(await verifierOf(environment, pemsFor(environment, platformPems)), refusals)
        const receiver = await startEndpoint(nodeHandler(() => verifier, events))
        try {
          await setNotifyUrl(mock, APP_KEY, receiver.url)
          const { orderId, orderSn } = await createAndPay(mock, client, "25.50", "EUR")
          const event = await eventFor(events, orderSn)
          expect(event).toMatchObject({
            eventType: "order.paid",
            orderSn,
            outerOrder: orderId,
            amount: "25.50",
            currency: "EUR",
            status: "PAID"
          })
          const delivery = await waitForDelivery(mock, orderSn, (d) => d.status === "delivered", "delivered")
          expect(delivery.eventId).toBe(event.eventId)
          expect(delivery.attempts.map((a) => [a.httpStatus, a.keyVersion])).toEqual([[200, 1]])
          expect(refusals).toEqual([])
        } finally {
          await receiver.close()
        }
      },
      TIMEOUT
    )

    it(
      "Fetch adapter (CallbackHandler.handleRequest) on a Request built from the raw body",
      async () => {
        const events: Array<Wire.CallbackEvent> = []
        const refusals: Array<Callback.CallbackVerificationErrorReason> = []
        const verifier = watched(await verifierOf(environment, pemsFor(environment, platformPems)), refusals)
        const receiver = await startEndpoint(fetchHandler(() => verifier, events))
        try {
          await setNotifyUrl(mock, APP_KEY, receiver.url)
          const { orderId, orderSn } = await createAndPay(mock, client, 1200, "JPY")
          const event = await eventFor(events, orderSn)
          expect(event).toMatchObject({ eventType: "order.paid", outerOrder: orderId, amount: "1200", currency: "JPY" })
          const delivery = await waitForDelivery(mock, orderSn, (d) => d.status === "delivered", "delivered")
          expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([200])
          expect(refusals).toEqual([])
        } finally {
          await receiver.close()
        }
      },
      TIMEOUT
    )

    it(
      "a body re-serialised by a framework is refused (401) and the mock retries; the raw body then verifies",
      async () => {
        const refusals: Array<Callback.CallbackVerificationErrorReason> = []
        const verifier = watched(await verifierOf(environment, pemsFor(environment, platformPems)), refusals)
        let passRawBody = false
        const receiver = await startEndpoint(async (req, res) => {
          const raw = await readBody(req)
          // What a JSON body parser followed by JSON.stringify hands on: the same data, other bytes.
          const body = passRawBody ? raw : JSON.stringify(JSON.parse(raw.toString("utf8")), null, 2)
          const verified = await Effect.runPromise(Effect.either(verifier.verify({ headers: req.headers, body })))
          const answer = CallbackHandler.answerOf(Either.isLeft(verified) ? verified.left : undefined)
          res.writeHead(answer.status, { "content-type": "application/json" })
          res.end(answer.body)
        })
        try {
          await setNotifyUrl(mock, APP_KEY, receiver.url)
          const { orderSn } = await createAndPay(mock, client)
          const refused = await waitForDelivery(mock, orderSn, (d) => d.attempts.length >= 2, "attempted twice")
          expect(refused.status).toBe("pending")
          expect(refused.attempts.every((a) => a.httpStatus === 401)).toBe(true)
          expect(refused.attempts[0]!.error).toMatch(/401.*signature verification failed: BadSignature/)
          expect(new Set(refusals)).toEqual(new Set(["BadSignature"]))

          passRawBody = true
          const delivered = await waitForDelivery(mock, orderSn, (d) => d.status === "delivered", "delivered")
          expect(delivered.attempts.at(-1)!.httpStatus).toBe(200)
          expect(delivered.attempts.slice(0, -1).every((a) => a.httpStatus === 401)).toBe(true)
        } finally {
          await receiver.close()
        }
      },
      TIMEOUT
    )

    it(
      "platform key rotation: version 2 is refused by a ring of v1 only (UnknownKeyVersion), accepted by v1 + v2",
      async () => {
        const rotating = await startMock({ environment })
        const events: Array<Wire.CallbackEvent> = []
        const refusals: Array<Callback.CallbackVerificationErrorReason> = []
        const v1Only = await platformKeyPems(rotating)
        expect(Object.keys(v1Only)).toEqual(["1"])
        let verifier = watched(await verifierOf(environment, pemsFor(environment, v1Only)), refusals)
        const receiver = await startEndpoint(nodeHandler(() => verifier, events))
        try {
          const onRotating = await makeClient(rotating)
          await setNotifyUrl(rotating, APP_KEY, receiver.url)
          const before = await createAndPay(rotating, onRotating)
          await waitForDelivery(rotating, before.orderSn, (d) => d.status === "delivered", "delivered")

          const rotated = await devData<PlatformKeyView>(rotating, "POST", "/dev/platform-keys/rotate")
          expect(rotated).toMatchObject({ environment, version: 2, status: "current" })
          const published = await devData<ReadonlyArray<PlatformKeyView>>(rotating, "GET", "/dev/platform-keys")
          expect(published.map((k) => [k.version, k.status])).toEqual([
            [1, "published"],
            [2, "current"]
          ])

          const after = await createAndPay(rotating, onRotating)
          const refused = await waitForDelivery(rotating, after.orderSn, (d) => d.attempts.length >= 1, "attempted")
          expect(refused.attempts.every((a) => a.httpStatus === 401 && a.keyVersion === 2)).toBe(true)
          expect(new Set(refusals)).toEqual(new Set(["UnknownKeyVersion"]))

          verifier = watched(
            await verifierOf(environment, pemsFor(environment, await platformKeyPems(rotating))),
            refusals
          )
          const delivered = await waitForDelivery(rotating, after.orderSn, (d) => d.status === "delivered", "delivered")
          expect(delivered.attempts.at(-1)).toMatchObject({ httpStatus: 200, keyVersion: 2 })
          expect((await eventFor(events, after.orderSn)).outerOrder).toBe(after.orderId)
        } finally {
          await receiver.close()
          await rotating.close()
        }
      },
      TIMEOUT
    )

    it(
      "a captured delivery sent again is refused by the replay guard; the mock's resend (signed afresh) passes",
      async () => {
        const events: Array<Wire.CallbackEvent> = []
        const refusals: Array<Callback.CallbackVerificationErrorReason> = []
        const verifier = watched(await verifierOf(environment, pemsFor(environment, platformPems)), refusals)
        const captured: Array<CapturedCallback> = []
        const receiver = await startEndpoint(async (req, res) => {
          // express.raw({ type: "application/json" }) in front of the handler: req.body is the raw Buffer.
          const body = await readBody(req)
          captured.push({ headers: headersOf(req), body })
          Object.assign(req, { body })
          await nodeHandler(() => verifier, events)(req, res)
        })
        try {
          await setNotifyUrl(mock, APP_KEY, receiver.url)
          const { orderSn } = await createAndPay(mock, client)
          const delivered = await waitForDelivery(mock, orderSn, (d) => d.status === "delivered", "delivered")
          const first = captured.find((c) => c.body.toString("utf8").includes(orderSn))!

          const replay = await fetch(receiver.url, {
            method: "POST",
            headers: Object.fromEntries(
              Object.entries(first.headers).filter(([name]) => CALLBACK_HEADERS.includes(name))
            ),
            body: first.body
          })
          expect(replay.status).toBe(401)
          expect(await replay.json()).toEqual({
            code: "signError",
            msg: "signature verification failed: Replayed",
            data: null
          })
          expect(refusals).toEqual(["Replayed"])
          expect(events.filter((e) => e.orderSn === orderSn)).toHaveLength(1)

          // The mock's own redelivery is signed afresh (new X-R-Ts): not a replay. Same eventId, so
          // processing stays idempotent on eventId.
          await devData(mock, "POST", `/dev/callbacks/${delivered.id}/resend`)
          const twice = await until(
            () => {
              const matching = events.filter((e) => e.orderSn === orderSn)
              return matching.length === 2 ? matching : undefined
            },
            "the resent delivery",
            POLL
          )
          expect(twice[1]!.eventId).toBe(twice[0]!.eventId)
          // Received: the first delivery, the replay sent above, the resend.
          const received = captured.filter((c) => c.body.toString("utf8").includes(orderSn))
          expect(received).toHaveLength(3)
          expect(received[2]!.headers["x-r-ts"]).not.toBe(received[0]!.headers["x-r-ts"])
          expect(received[2]!.body.equals(received[0]!.body)).toBe(true)
          const redelivered = await waitForDelivery(mock, orderSn, (d) => d.attempts.length === 2, "delivered again")
          expect(redelivered.status).toBe("delivered")
          expect(redelivered.attempts.map((a) => a.httpStatus)).toEqual([200, 200])
          expect(refusals).toEqual(["Replayed"])
        } finally {
          await receiver.close()
        }
      },
      TIMEOUT
    )
  })

  describe("the Promise facade, from async/await", () => {
    it(
      "create, SignatureRejectedError, DuplicateOrderError, InvalidRequestError, verifyCallback of a captured callback",
      async () => {
        // No crypto option: WebCrypto by default.
        const options: PaymentConnect.PaymentClientOptions = {
          environment,
          baseUrl: mock.url,
          appKey: APP_KEY,
          privateKeys: { 1: merchantPem },
          callbacks: { platformKeys: pemsFor(environment, platformPems) }
        }
        const payments = await PaymentConnect.createPaymentClient(options)
        expect(payments.keyVersion).toBe(1)
        const orderId = newOrderId("promise")
        const order = await payments.createOrder({ orderId, amount: 19.99, currency: "USD" })
        expect(order.outerOrder).toBe(orderId)
        expect(order.h5Url).toBe(`${mock.url}/h5/checkout/${encodeURIComponent(order.orderSn)}`)
        expect(await payments.createOrder({ orderId, amount: "19.99", currency: "USD" })).toEqual(order)

        const duplicate = await rejection(payments.createOrder({ orderId, amount: "20.00", currency: "USD" }))
        expect(duplicate).toBeInstanceOf(PaymentConnect.DuplicateOrderError)
        expect(duplicate).toBeInstanceOf(PaymentConnect.PaymentConnectError)
        expect((duplicate as PaymentConnect.DuplicateOrderError).code).toBe("ERR_PC_DUPLICATE_ORDER")
        expect((duplicate as PaymentConnect.DuplicateOrderError).orderId).toBe(orderId)

        const invalid = await rejection(payments.createOrder({ orderId: "", amount: "1.00", currency: "USD" }))
        expect(invalid).toBeInstanceOf(PaymentConnect.InvalidRequestError)
        expect(invalid).toMatchObject({ source: "local", field: "orderId", code: "ERR_PC_INVALID_REQUEST" })

        const strangerClient = await PaymentConnect.createPaymentClient({
          ...options,
          privateKeys: { 1: stranger.privateKeyPem }
        })
        const log = vi.spyOn(console, "log").mockImplementation(() => {})
        try {
          const attempt = strangerClient.createOrder({
            orderId: newOrderId("promise-wrong"),
            amount: "1.00",
            currency: "USD"
          })
          if (checksSignatures) {
            const error = await rejection(attempt)
            expect(error).toBeInstanceOf(PaymentConnect.SignatureRejectedError)
            expect(error).toBeInstanceOf(PaymentConnect.PaymentConnectError)
            expect(error).toBeInstanceOf(Error)
            const rejected = error as PaymentConnect.SignatureRejectedError
            expect(rejected.code).toBe("ERR_PC_SIGNATURE_REJECTED")
            expect(rejected.name).toBe("SignatureRejectedError")
            expect(rejected.serverMessage).toMatch(/^signature verification failed/)
            expect(rejected.keyVersion).toBe(1)
            expect(rejected.hint).toBeDefined()
            expect(log).not.toHaveBeenCalled()
          } else {
            expect((await attempt).orderSn).toBeTruthy()
            // The facade runs on Effect's default logger, which writes to the console.
            expect(log.mock.calls.flat().map(String).join("\n")).toMatch(SANDBOX_WARNING)
          }
        } finally {
          log.mockRestore()
        }

        const captured: Array<CapturedCallback & { readonly orderSn: string }> = []
        const receiver = await startEndpoint(async (req, res) => {
          const body = await readBody(req)
          const parsed = JSON.parse(body.toString("utf8")) as { readonly orderSn: string }
          captured.push({ headers: headersOf(req), body, orderSn: parsed.orderSn })
          res.writeHead(200, { "content-type": "application/json" })
          res.end('{"code":"SUCCESS","msg":null,"data":null}')
        })
        try {
          await setNotifyUrl(mock, APP_KEY, receiver.url)
          await pay(mock, order.orderSn)
          const callback = await until(
            () => captured.find((c) => c.orderSn === order.orderSn),
            "the captured callback",
            POLL
          )
          const event = await payments.verifyCallback({ headers: callback.headers, body: callback.body })
          expect(event).toMatchObject({
            eventType: "order.paid",
            orderSn: order.orderSn,
            outerOrder: orderId,
            amount: "19.99",
            currency: "USD",
            status: "PAID"
          })
          const replayed = await rejection(payments.verifyCallback({ headers: callback.headers, body: callback.body }))
          expect(replayed).toBeInstanceOf(PaymentConnect.CallbackVerificationError)
          expect((replayed as PaymentConnect.CallbackVerificationError).reason).toBe("Replayed")
          const reserialised = await rejection(
            payments.verifyCallback({
              headers: callback.headers,
              body: JSON.stringify(JSON.parse(callback.body.toString("utf8")), null, 2)
            })
          )
          expect((reserialised as PaymentConnect.CallbackVerificationError).reason).toBe("BadSignature")
          // A verifier alone, on a Fetch Request, with its own replay guard.
          const verifier = await PaymentConnect.createCallbackVerifier({
            environment,
            appKey: APP_KEY,
            platformKeys: pemsFor(environment, platformPems)
          })
          const request = new Request(receiver.url, {
            method: "POST",
            headers: Object.entries(callback.headers).filter(([name]) => CALLBACK_HEADERS.includes(name)),
            body: callback.body
          })
          expect((await verifier.verifyCallbackRequest(request)).eventId).toBe(event.eventId)
        } finally {
          await receiver.close()
        }
      },
      TIMEOUT
    )
  })
})

describe("platform keys belong to one environment", () => {
  it(
    "the sandbox platform key configured as the production key refuses production callbacks; a sandbox callback at a production endpoint is WrongEnvironment",
    async () => {
      const [sandbox, production] = await Promise.all([
        startMock({ environment: "sandbox" }),
        startMock({ environment: "production" })
      ])
      const events: Array<Wire.CallbackEvent> = []
      const refusals: Array<Callback.CallbackVerificationErrorReason> = []
      try {
        const sandboxPems = await platformKeyPems(sandbox)
        const productionPems = await platformKeyPems(production)
        // The mistake: the key copied from the sandbox's developer menu, pasted as the production key.
        let verifier = watched(await verifierOf("production", { production: sandboxPems }), refusals)
        const receiver = await startEndpoint(nodeHandler(() => verifier, events))
        try {
          await setNotifyUrl(production, APP_KEY, receiver.url)
          const live = await createAndPay(production, await makeClient(production))
          const refused = await waitForDelivery(production, live.orderSn, (d) => d.attempts.length >= 1, "attempted")
          expect(refused.status).toBe("pending")
          expect(refused.attempts[0]!.httpStatus).toBe(401)
          expect(new Set(refusals)).toEqual(new Set(["BadSignature"]))

          // Fixed: the production key for production (the sandbox key known too, so a mix-up is named).
          verifier = watched(
            await verifierOf("production", { production: productionPems, sandbox: sandboxPems }),
            refusals
          )
          await waitForDelivery(production, live.orderSn, (d) => d.status === "delivered", "delivered")
          expect((await eventFor(events, live.orderSn)).outerOrder).toBe(live.orderId)

          // A sandbox callback sent to the production endpoint: signed with the sandbox key, refused.
          await setNotifyUrl(sandbox, APP_KEY, receiver.url)
          const test = await createAndPay(sandbox, await makeClient(sandbox))
          const wrong = await waitForDelivery(sandbox, test.orderSn, (d) => d.attempts.length >= 1, "attempted")
          expect(wrong.status).toBe("pending")
          expect(wrong.attempts[0]!.httpStatus).toBe(401)
          expect(refusals.at(-1)).toBe("WrongEnvironment")
          expect(events.some((e) => e.orderSn === test.orderSn)).toBe(false)
        } finally {
          await receiver.close()
        }
      } finally {
        await Promise.all([sandbox.close(), production.close()])
      }
    },
    TIMEOUT
  )
})
