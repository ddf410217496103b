import { FetchHttpClient, HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Canonical, type Crypto, KeyRing } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { Chunk, ConfigProvider, Duration, Effect, Fiber, Layer, Redacted, Schedule, TestClock } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { inspect } from "node:util"
import * as NodeHttpClient from "../src/NodeHttpClient.js"
import * as PaymentClient from "../src/PaymentClient.js"
import type { PaymentClientError } from "../src/PaymentClientError.js"
import { faultServer, type Reply, success } from "./support/FaultServer.js"
import { APP_KEY, keyOf } from "./support/vectors.js"

const merchantV1 = keyOf("merchant-v1")
const merchantV2 = keyOf("merchant-v2")
const signersV1 = await KeyRing.importSigners(NodeCrypto, { 1: merchantV1.privatePkcs8Pem })

const input: PaymentClient.CreateOrderInput = { orderId: "M-1001", amount: "10.00", currency: "USD" }
const fastRetry: Partial<PaymentClient.RetryPolicy> = { baseDelay: 20, maxDelay: 100, deadline: 10_000 }

// The retry and fault behaviour holds on every HttpClient the client ships with: Effect's fetch
// client (browsers, edge runtimes) and our node:http client (the default on Node).
const httpLayers: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["fetch", FetchHttpClient.layer],
  ["node:http", NodeHttpClient.layer]
]

const clientFor = (
  baseUrl: string,
  http: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer,
  options: Partial<PaymentClient.CommonOptions> & { readonly keyRing?: KeyRing.KeyRing<Crypto.Signer> } = {}
) =>
  PaymentClient.make({
    environment: "production",
    baseUrl,
    appKey: APP_KEY,
    timeout: 2000,
    ...options,
    retry: { ...fastRetry, ...options.retry },
    keyRing: options.keyRing ?? signersV1
  }).pipe(Effect.provide(http))

const expectTag = <T extends PaymentClientError["_tag"]>(
  error: PaymentClientError,
  tag: T
): Extract<PaymentClientError, { readonly _tag: T }> => {
  expect(error._tag, error.message).toBe(tag)
  return error as Extract<PaymentClientError, { readonly _tag: T }>
}

const envelope = (status: number, code: string, msg: string | null, headers?: Record<string, string>): Reply =>
  headers === undefined ? { kind: "envelope", status, code, msg } : { kind: "envelope", status, code, msg, headers }

/** Real milliseconds, not the TestClock. */
const realSleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("createOrder: signing", () => {
  it.scopedLive(
    "sends the canonical body once serialised, signed with X-R-AK, X-R-TS, X-R-KEY-VERSION, X-R-Signature",
    () =>
      Effect.gen(function* () {
        const server = yield* faultServer((attempt) => success(attempt))
        const client = yield* clientFor(server.url)
        const result = yield* client.createOrder({ orderId: "M-1001", amount: 10.5, currency: "USD" })
        expect(result).toEqual({
          orderSn: "PC202611210001",
          outerOrder: "M-1001",
          h5Url: "http://127.0.0.1/h5/checkout/PC202611210001"
        })
        expect(server.attempts).toHaveLength(1)
        const [attempt] = server.attempts
        expect(attempt!.method).toBe("POST")
        expect(attempt!.path).toBe("/openapi/v2/order/create")
        expect(attempt!.body).toBe('{"orderId":"M-1001","amount":"10.50","currency":"USD"}')
        expect(attempt!.headers["content-type"]).toBe("application/json")
        expect(attempt!.headers["x-r-ak"]).toBe(APP_KEY)
        expect(attempt!.keyVersion).toBe("1")
        expect(attempt!.signatureValid).toBe(true)
        expect(attempt!.withinWindow).toBe(true)
      })
  )

  it.scopedLive("signs the exact string of spec 5.3 (checked against node:crypto independently)", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt) => success(attempt))
      const client = yield* clientFor(server.url)
      yield* client.createOrder({ orderId: "订单-ü-1003", amount: "0.01", currency: "CNY" })
      const [attempt] = server.attempts
      const verifier = yield* Effect.promise(() => NodeCrypto.importPublicKey(merchantV1.publicSpkiPem))
      const stringToSign = Canonical.requestStringToSign({
        method: "POST",
        path: "/openapi/v2/order/create",
        appKey: APP_KEY,
        timestamp: attempt!.timestamp!,
        body: '{"orderId":"订单-ü-1003","amount":"0.01","currency":"CNY"}'
      })
      expect(attempt!.body).toBe('{"orderId":"订单-ü-1003","amount":"0.01","currency":"CNY"}')
      expect(yield* Effect.promise(() => verifier.verify(stringToSign, attempt!.signature!))).toBe(true)
    })
  )

  it.scopedLive("signs in sandbox too, so that integrations behave the same when they go live", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt) => ({
        ...(success(attempt) as Extract<Reply, { kind: "envelope" }>),
        headers: { "x-r-signature-check": "valid" }
      }))
      const client = yield* clientFor(server.url, undefined, { environment: "sandbox" })
      yield* client.createOrder(input)
      expect(server.attempts[0]!.signatureValid).toBe(true)
    })
  )

  it.scopedLive("signs with the current version of a rotated ring (v2), keeping v1 in the ring", () =>
    Effect.gen(function* () {
      const ring = yield* Effect.promise(() =>
        KeyRing.importSigners(NodeCrypto, { 1: merchantV1.privatePkcs8Pem, 2: merchantV2.privatePkcs1Pem }, 2)
      )
      const server = yield* faultServer((attempt) => success(attempt))
      const client = yield* clientFor(server.url, undefined, { keyRing: ring })
      yield* client.createOrder(input)
      expect(server.attempts[0]!.keyVersion).toBe("2")
      expect(server.attempts[0]!.signatureValid).toBe(true)
      expect(client.keyRing.versions).toEqual([1, 2])
    })
  )

  it.scopedLive("imports Redacted PEM keys through a CryptoProvider", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt) => success(attempt))
      const client = yield* PaymentClient.make({
        environment: "gray",
        baseUrl: server.url,
        appKey: APP_KEY,
        crypto: NodeCrypto,
        privateKeys: { 1: Redacted.make(merchantV1.privatePkcs1Pem), 2: Redacted.make(merchantV2.privatePkcs8Pem) },
        currentKeyVersion: 1
      }).pipe(Effect.provide(FetchHttpClient.layer))
      yield* client.createOrder(input)
      expect(server.attempts[0]!.keyVersion).toBe("1")
      expect(server.attempts[0]!.signatureValid).toBe(true)
    })
  )

  it.scopedLive("layerConfig reads the settings and the Redacted private key from Config", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt) => success(attempt))
      const config = ConfigProvider.fromMap(
        new Map([
          ["PC_ENVIRONMENT", "production"],
          ["PC_BASE_URL", server.url],
          ["PC_APP_KEY", APP_KEY],
          ["PC_PRIVATE_KEY", merchantV2.privatePkcs8Pem],
          ["PC_KEY_VERSION", "2"],
          ["PC_TIMEOUT", "3 seconds"]
        ])
      )
      const live = PaymentClient.layerConfig({ crypto: NodeCrypto }).pipe(
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(Layer.setConfigProvider(config))
      )
      const result = yield* PaymentClient.createOrder(input).pipe(Effect.provide(live))
      expect(result.outerOrder).toBe("M-1001")
      expect(server.attempts[0]!.keyVersion).toBe("2")
      expect(server.attempts[0]!.signatureValid).toBe(true)
    })
  )
})

describe("createOrder: local validation, before any network call", () => {
  const cases: ReadonlyArray<readonly [string, PaymentClient.CreateOrderInput, string]> = [
    ["too many decimals", { orderId: "M-1", amount: "10.001", currency: "USD" }, "amount"],
    ["negative amount", { orderId: "M-1", amount: -1, currency: "USD" }, "amount"],
    ["exponent", { orderId: "M-1", amount: "1e3", currency: "USD" }, "amount"],
    ["decimals in JPY", { orderId: "M-1", amount: "100.5", currency: "JPY" }, "amount"],
    ["lower-case currency", { orderId: "M-1", amount: "10.00", currency: "usd" }, "currency"],
    ["unknown currency", { orderId: "M-1", amount: "10.00", currency: "XYZ" }, "currency"],
    ["empty orderId", { orderId: "", amount: "10.00", currency: "USD" }, "orderId"],
    ["orderId of 65 characters", { orderId: "x".repeat(65), amount: "10.00", currency: "USD" }, "orderId"],
    ["orderId with a control character", { orderId: "M-1\n", amount: "10.00", currency: "USD" }, "orderId"]
  ]
  for (const [name, bad, field] of cases) {
    it.scopedLive(`${name}: InvalidRequest (local) on ${field}, no request sent`, () =>
      Effect.gen(function* () {
        const server = yield* faultServer((attempt) => success(attempt))
        const client = yield* clientFor(server.url)
        const error = expectTag(yield* Effect.flip(client.createOrder(bad)), "InvalidRequest")
        expect(error.source).toBe("local")
        expect(error.field).toBe(field)
        expect(error.code).toBe("paramError")
        expect(server.attempts).toHaveLength(0)
      })
    )
  }
})

describe.each(httpLayers)("createOrder: faults and retries over %s", (_name, http) => {
  it.scopedLive("two 503s then success: exactly three attempts, three X-R-TS values, three valid signatures", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt, index) =>
        index < 2 ? envelope(503, "internalError", "upstream restarting") : success(attempt)
      )
      const client = yield* clientFor(server.url, http)
      const result = yield* client.createOrder(input)
      expect(result.outerOrder).toBe("M-1001")
      expect(server.attempts).toHaveLength(3)
      expect(server.attempts.filter((a) => a.signatureValid)).toHaveLength(3)
      expect(new Set(server.attempts.map((a) => a.timestamp)).size).toBe(3)
      expect(new Set(server.attempts.map((a) => a.signature)).size).toBe(3)
      // The bytes are made once: every attempt carries the same body.
      expect(new Set(server.attempts.map((a) => a.body)).size).toBe(1)
    })
  )

  it.scopedLive("a hung connection times out, then a retry succeeds", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt, index) => (index === 0 ? { kind: "hang" } : success(attempt)))
      const client = yield* clientFor(server.url, http, { timeout: 300 })
      const started = Date.now()
      const result = yield* client.createOrder(input)
      expect(result.outerOrder).toBe("M-1001")
      expect(server.attempts).toHaveLength(2)
      expect(Date.now() - started).toBeGreaterThanOrEqual(300)
      expect(server.attempts.every((a) => a.signatureValid)).toBe(true)
    })
  )

  it.scopedLive("a hung connection with retries off fails with Timeout (scope attempt)", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() => ({ kind: "hang" }))
      const client = yield* clientFor(server.url, http, { timeout: 200, retry: { maxAttempts: 1 } })
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "Timeout")
      expect(error.scope).toBe("attempt")
      expect(Duration.toMillis(error.timeout)).toBe(200)
      // One attempt, counted by the client; on a loaded machine the 200 ms can pass before the
      // server has read the request, so the server saw one at most.
      expect(error.attempts).toBe(1)
      expect(server.attempts.length).toBeLessThanOrEqual(1)
    })
  )

  it.scopedLive("the deadline bounds the whole call: Timeout (scope deadline)", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() => ({ kind: "hang" }))
      // An attempt's own timeout (60 s) outlasts the test: only the 300 ms deadline can end this call.
      const client = yield* clientFor(server.url, http, { timeout: 60_000, retry: { deadline: 300, maxAttempts: 5 } })
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "Timeout")
      expect(error.scope).toBe("deadline")
      expect(error.attempts).toBe(1)
      expect(server.attempts.length).toBeLessThanOrEqual(1)
    })
  )

  it.scopedLive("a non-JSON 502 HTML page is retried, then UnexpectedResponse with status and a short excerpt", () =>
    Effect.gen(function* () {
      const html = `<html><head><title>502 Bad Gateway</title></head><body>${"<p>nginx</p>".repeat(100)}</body></html>`
      const server = yield* faultServer(() => ({ kind: "raw", status: 502, body: html, contentType: "text/html" }))
      const client = yield* clientFor(server.url, http, { retry: { maxAttempts: 3 } })
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "UnexpectedResponse")
      expect(server.attempts).toHaveLength(3)
      expect(error.status).toBe(502)
      expect(error.contentType).toBe("text/html")
      expect(error.excerpt).toContain("502 Bad Gateway")
      expect(error.excerpt.length).toBeLessThanOrEqual(200)
      expect(error.message.length).toBeLessThan(400)
    })
  )

  it.scopedLive("a non-envelope 4xx answer is not retried", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() => ({
        kind: "raw",
        status: 403,
        body: "Forbidden",
        contentType: "text/plain"
      }))
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "UnexpectedResponse")
      expect(error.status).toBe(403)
      expect(error.excerpt).toBe("Forbidden")
      expect(server.attempts).toHaveLength(1)
    })
  )

  it.scopedLive("429 with Retry-After: 1 is honoured: the second attempt comes no earlier than 1 s later", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt, index) =>
        index === 0
          ? envelope(429, "rateLimited", "over 60 requests per minute", { "retry-after": "1" })
          : success(attempt)
      )
      const client = yield* clientFor(server.url, http)
      yield* client.createOrder(input)
      expect(server.attempts).toHaveLength(2)
      expect(server.attempts[1]!.at - server.attempts[0]!.at).toBeGreaterThanOrEqual(1000)
      expect(server.attempts.every((a) => a.signatureValid)).toBe(true)
    })
  )

  it.scopedLive(
    "503 serviceUnavailable with Retry-After: 1 (the database away) is retried no earlier than 1 s later",
    () =>
      Effect.gen(function* () {
        const server = yield* faultServer((attempt, index) =>
          index === 0
            ? envelope(503, "serviceUnavailable", "the database cannot be reached", { "retry-after": "1" })
            : success(attempt)
        )
        const client = yield* clientFor(server.url, http)
        yield* client.createOrder(input)
        expect(server.attempts).toHaveLength(2)
        expect(server.attempts[1]!.at - server.attempts[0]!.at).toBeGreaterThanOrEqual(1000)
      })
  )

  it.scopedLive("429 with Retry-After as an HTTP date is honoured", () =>
    Effect.gen(function* () {
      let retryAt = 0
      const server = yield* faultServer((attempt, index) => {
        if (index > 0) return success(attempt)
        // HTTP dates have whole seconds: the earliest allowed retry is that second.
        retryAt = Math.floor((Date.now() + 1500) / 1000) * 1000
        return envelope(429, "rateLimited", "slow down", { "retry-after": new Date(retryAt).toUTCString() })
      })
      const client = yield* clientFor(server.url, http)
      yield* client.createOrder(input)
      expect(server.attempts).toHaveLength(2)
      expect(server.attempts[1]!.at).toBeGreaterThanOrEqual(retryAt - 5)
    })
  )

  it.scopedLive("an HTTP-date Retry-After is measured against the server's Date header, not the local clock", () =>
    Effect.gen(function* () {
      // The server's clock is an hour ahead of ours: against the local clock the wait would be an
      // hour and a second, past the deadline; on the server's clock it is one second.
      const server = yield* faultServer((attempt, index) => {
        if (index > 0) return success(attempt)
        const serverNow = Date.now() + 60 * 60 * 1000
        return envelope(429, "rateLimited", "slow down", {
          date: new Date(serverNow).toUTCString(),
          "retry-after": new Date(serverNow + 1000).toUTCString()
        })
      })
      const client = yield* clientFor(server.url, http)
      yield* client.createOrder(input)
      expect(server.attempts).toHaveLength(2)
      // Measured on the server, whose gap includes the client's whole wait. No upper bound: against
      // the local clock the wait would pass the deadline and the call would fail, not succeed.
      const waited = server.attempts[1]!.at - server.attempts[0]!.at
      expect(waited).toBeGreaterThanOrEqual(990)
    })
  )

  // On the TestClock, which never moves here: a wait of any length would never end, so the call
  // returning at all shows it failed at once; and no sleep was started but the attempt's own
  // timeout (2 s from clientFor, raced against the answer), none for Retry-After or the deadline.
  it.scoped("a Retry-After past the deadline fails at once with RateLimited carrying retryAfter", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() => envelope(429, "rateLimited", "slow down", { "retry-after": "120" }))
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "RateLimited")
      expect(Chunk.toReadonlyArray(yield* TestClock.sleeps()).filter((at) => at !== 2000)).toEqual([])
      expect(server.attempts).toHaveLength(1)
      expect(error.retryAfter && Duration.toMillis(error.retryAfter)).toBe(120_000)
      expect(error.serverMessage).toBe("slow down")
    })
  )

  it.scoped("a 503 whose Retry-After ends past the deadline fails at once with its own error (ServerError)", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() => envelope(503, "internalError", "maintenance", { "retry-after": "120" }))
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "ServerError")
      // TestClock: no wait was started (see above).
      expect(Chunk.toReadonlyArray(yield* TestClock.sleeps()).filter((at) => at !== 2000)).toEqual([])
      expect(server.attempts).toHaveLength(1)
      expect(error.status).toBe(503)
    })
  )

  it.scopedLive("signError is never retried: exactly one attempt, SignatureRejected with the server's message", () =>
    Effect.gen(function* () {
      const msg = "signature verification failed: signature not valid"
      const server = yield* faultServer(() => envelope(401, "signError", msg))
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "SignatureRejected")
      expect(server.attempts).toHaveLength(1)
      expect(error.serverMessage).toBe(msg)
      expect(error.status).toBe(401)
      expect(error.keyVersion).toBe(1)
      expect(error.requestId).toBe("req-test-1")
      expect(error.message).toContain(msg)
    })
  )

  it.scopedLive("a 200 whose envelope says signError is still SignatureRejected (the code decides)", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() =>
        envelope(200, "signError", "signature verification failed: key version 3 unknown")
      )
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "SignatureRejected")
      expect(error.status).toBe(200)
      expect(error.hint).toMatch(/upload the public key first/)
      expect(server.attempts).toHaveLength(1)
    })
  )

  it.scopedLive("a Date header 10 minutes off gives the clock-skew hint (skew = local now - Date)", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() =>
        envelope(401, "signError", "signature verification failed: timestamp outside the 5 minute window", {
          date: new Date(Date.now() - 10 * 60 * 1000).toUTCString()
        })
      )
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "SignatureRejected")
      expect(error.localClockAheadMs).toBeGreaterThan(9.9 * 60 * 1000)
      expect(error.localClockAheadMs).toBeLessThan(10.1 * 60 * 1000)
      expect(error.hint).toMatch(/clock is 6\d\d s ahead of the server's/)
      expect(error.message).toMatch(/NTP/)
    })
  )

  it.scopedLive("a server clock in the future gives the hint the other way round", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() =>
        envelope(401, "signError", "signature verification failed: timestamp outside the 5 minute window", {
          date: new Date(Date.now() + 10 * 60 * 1000).toUTCString()
        })
      )
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "SignatureRejected")
      expect(error.localClockAheadMs).toBeLessThan(-9.9 * 60 * 1000)
      expect(error.hint).toMatch(/behind the server's/)
    })
  )

  it.scopedLive("paramError is InvalidRequest (server) with the field parsed from msg, not retried", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() =>
        envelope(400, "paramError", "orderId must not contain control characters")
      )
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "InvalidRequest")
      expect(error.source).toBe("server")
      expect(error.field).toBe("orderId")
      expect(error.serverMessage).toBe("orderId must not contain control characters")
      expect(server.attempts).toHaveLength(1)
    })
  )

  it.scopedLive("a 500 whose body is a paramError envelope is InvalidRequest, not retried", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() => envelope(500, "paramError", 'invalid field "currency"'))
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "InvalidRequest")
      expect(error.field).toBe("currency")
      expect(error.status).toBe(500)
      expect(server.attempts).toHaveLength(1)
    })
  )

  it.scopedLive("duplicateOrder is DuplicateOrder with the orderId, not retried", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() =>
        envelope(409, "duplicateOrder", "orderId M-1001 was used with a different amount or currency")
      )
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "DuplicateOrder")
      expect(error.orderId).toBe("M-1001")
      expect(error.status).toBe(409)
      expect(server.attempts).toHaveLength(1)
    })
  )

  it.scopedLive("internalError on every attempt ends in ServerError after maxAttempts", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() => envelope(500, "internalError", "boom"))
      const client = yield* clientFor(server.url, http, { retry: { maxAttempts: 2 } })
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "ServerError")
      expect(error.code).toBe("internalError")
      expect(error.requestId).toBe("req-test-1")
      expect(server.attempts).toHaveLength(2)
    })
  )

  it.scopedLive("a SUCCESS envelope without a create-order result is UnexpectedResponse", () =>
    Effect.gen(function* () {
      const server = yield* faultServer(() => ({
        kind: "envelope",
        status: 200,
        code: "SUCCESS",
        data: { orderSn: 1 }
      }))
      const client = yield* clientFor(server.url, http)
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "UnexpectedResponse")
      expect(error.status).toBe(200)
      expect(server.attempts).toHaveLength(1)
    })
  )

  it.scopedLive("connection resets are retried; a refused connection ends in TransportError", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt, index) => (index === 0 ? { kind: "reset" } : success(attempt)))
      const client = yield* clientFor(server.url, http)
      yield* client.createOrder(input)
      expect(server.attempts).toHaveLength(2)

      // A port that was just free: nothing listens there.
      const port = yield* Effect.promise(
        () =>
          new Promise<number>((resolve) => {
            const probe = createServer()
            probe.listen(0, "127.0.0.1", () => {
              const { port } = probe.address() as AddressInfo
              probe.close(() => resolve(port))
            })
          })
      )
      const refused = yield* clientFor(`http://127.0.0.1:${port}`, http, { retry: { maxAttempts: 2 } })
      const error = expectTag(yield* Effect.flip(refused.createOrder(input)), "TransportError")
      expect(error.message).toContain(`127.0.0.1:${port}`)
    })
  )

  it.scopedLive("transformClient: a retryTransient added there re-signs every attempt too", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt, index) =>
        index === 0 ? { kind: "raw", status: 503, body: "busy", contentType: "text/plain" } : success(attempt)
      )
      const client = yield* clientFor(server.url, http, {
        retry: { maxAttempts: 1 },
        transformClient: HttpClient.retryTransient({ times: 2, schedule: Schedule.spaced("10 millis") })
      })
      yield* client.createOrder(input)
      expect(server.attempts).toHaveLength(2)
      expect(server.attempts.every((a) => a.signatureValid)).toBe(true)
      expect(server.attempts[0]!.timestamp).not.toBe(server.attempts[1]!.timestamp)
    })
  )

  it.scopedLive("a 502 page echoing the request headers: the signature is redacted from every field and message", () =>
    Effect.gen(function* () {
      // A proxy's debug page that lists the request's X-R headers, the signature first.
      const server = yield* faultServer((attempt) => ({
        kind: "raw",
        status: 502,
        contentType: "text/html",
        body:
          `<html><title>502 Bad Gateway</title><pre>` +
          ["x-r-signature", "x-r-ak", "x-r-ts", "x-r-key-version"]
            .map((name) => `${name}: ${String(attempt.headers[name])}`)
            .join("\n") +
          `</pre></html>`
      }))
      const client = yield* clientFor(server.url, http, { retry: { maxAttempts: 1 } })
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "UnexpectedResponse")
      const signature = server.attempts[0]!.signature!
      const pemLine = merchantV1.privatePkcs8Pem.split("\n")[1]!
      const inspected = inspect(error, { depth: 10 })
      // The page did reach the excerpt and the message: the signature was there to leak.
      expect(error.excerpt).toContain("x-r-signature: [redacted base64] x-r-ak: " + APP_KEY)
      expect(inspected).toContain("[redacted base64]")
      for (const text of [inspected, error.message, error.excerpt, JSON.stringify(error), String(error)]) {
        expect(text).not.toContain(signature.slice(0, 24))
        expect(text).not.toContain(signature.slice(-24))
        expect(text).not.toContain(pemLine)
      }
    })
  )
})

describe("createOrder with the TestClock", () => {
  it.scoped("X-R-TS comes from Clock, and the wait before a retry honours Retry-After on the clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_763_712_000_000)
      const server = yield* faultServer((attempt, index) =>
        index === 0 ? envelope(429, "rateLimited", "slow down", { "retry-after": "120" }) : success(attempt)
      )
      const client = yield* clientFor(server.url, undefined, { retry: { deadline: "10 minutes", jitter: false } })
      const fiber = yield* Effect.fork(client.createOrder(input))
      // Wait, however long the machine takes, until the retry loop sleeps until Retry-After.
      const retryAt = 1_763_712_000_000 + 120_000
      while (!Chunk.toReadonlyArray(yield* TestClock.sleeps()).includes(retryAt)) yield* realSleep(5)
      expect(server.attempts).toHaveLength(1)
      expect(server.attempts[0]!.timestamp).toBe("1763712000000")
      yield* TestClock.adjust("119 seconds")
      // Still asleep: the wait ends at Retry-After, not before.
      expect(Chunk.toReadonlyArray(yield* TestClock.sleeps())).toContain(retryAt)
      expect(server.attempts).toHaveLength(1)
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      expect(result.outerOrder).toBe("M-1001")
      expect(server.attempts).toHaveLength(2)
      expect(server.attempts[1]!.timestamp).toBe("1763712120000")
      expect(server.attempts.every((a) => a.signatureValid)).toBe(true)
    })
  )
})

describe("make: configuration errors", () => {
  const fail = (options: PaymentClient.Options) =>
    Effect.flip(PaymentClient.make(options).pipe(Effect.provide(FetchHttpClient.layer)))
  const base = { environment: "production" as const, baseUrl: "http://127.0.0.1:4010", appKey: APP_KEY }

  it.effect("a weak (1024-bit) key is WeakKey", () =>
    Effect.gen(function* () {
      const error = yield* fail({
        ...base,
        crypto: NodeCrypto,
        privateKeys: { 1: Redacted.make(keyOf("weak-1024").privatePkcs8Pem) }
      })
      expect(error.reason).toBe("WeakKey")
      expect(error.option).toBe("privateKeys[1]")
    })
  )

  it.effect("text that is not a private key is BadKey, and the message holds no key material", () =>
    Effect.gen(function* () {
      const error = yield* fail({
        ...base,
        crypto: NodeCrypto,
        privateKeys: { 1: Redacted.make(merchantV1.publicSpkiPem) }
      })
      expect(error.reason).toBe("BadKey")
      expect(error.message).not.toContain(merchantV1.publicSpkiPem.split("\n")[1]!)
    })
  )

  it.effect("a current key version the ring does not hold is UnknownKeyVersion", () =>
    Effect.gen(function* () {
      const error = yield* fail({
        ...base,
        crypto: NodeCrypto,
        privateKeys: { 1: Redacted.make(merchantV1.privatePkcs8Pem) },
        currentKeyVersion: 3
      })
      expect(error.reason).toBe("UnknownKeyVersion")
    })
  )

  it.effect("a signer under 2048 bits in a ready-made ring is WeakKey", () =>
    Effect.gen(function* () {
      const weak = KeyRing.make({ 1: { modulusLength: 1024, sign: () => Promise.resolve("") } })
      const error = yield* fail({ ...base, keyRing: weak })
      expect(error.reason).toBe("WeakKey")
    })
  )

  it.effect("bad options are InvalidOption, naming the option", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Partial<PaymentClient.CommonOptions>, string]> = [
        [{ appKey: "not-a-uuid" }, "appKey"],
        [{ baseUrl: "127.0.0.1:4010" }, "baseUrl"],
        [{ baseUrl: "ftp://127.0.0.1" }, "baseUrl"],
        [{ environment: "live" as never }, "environment"],
        [{ timeout: -1 }, "timeout"],
        [{ retry: { maxAttempts: 0 } }, "retry.maxAttempts"],
        [{ retry: { deadline: "forever" as never } }, "retry.deadline"]
      ]
      for (const [override, option] of cases) {
        const error = yield* fail({ ...base, keyRing: signersV1, ...override })
        expect(error.reason).toBe("InvalidOption")
        expect(error.option).toBe(option)
      }
    })
  )

  it.effect("a baseUrl with a path or user info is refused: the path could not be signed", () =>
    Effect.gen(function* () {
      for (const baseUrl of ["https://gw.example.com/pay", "https://gw.example.com/pay/", "https://gw.example.com//"]) {
        const error = yield* fail({ ...base, keyRing: signersV1, baseUrl })
        expect(error.reason).toBe("InvalidOption")
        expect(error.option).toBe("baseUrl")
        expect(error.message).toContain("/openapi/v2/")
        expect(error.message).toMatch(/gateway prefix .* cannot be signed/)
      }
      const credentials = yield* fail({
        ...base,
        keyRing: signersV1,
        baseUrl: "https://merchant:s3cret@gw.example.com"
      })
      expect(credentials.option).toBe("baseUrl")
      expect(credentials.message).toMatch(/user info/)
      expect(credentials.message).not.toContain("s3cret")
      // A bare origin, with or without the trailing slash, is what it takes.
      const client = yield* PaymentClient.make({
        ...base,
        keyRing: signersV1,
        baseUrl: "https://gw.example.com/"
      }).pipe(Effect.provide(FetchHttpClient.layer))
      expect(client.baseUrl).toBe("https://gw.example.com")
    })
  )

  it.scopedLive("retry fields given as undefined keep their defaults", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt, index) =>
        index < 3 ? envelope(503, "internalError", "busy") : success(attempt)
      )
      // What `{ maxAttempts: settings.maxAttempts }` gives when the setting is absent.
      const retry: PaymentClient.RetryOptions = {
        maxAttempts: undefined,
        jitter: undefined,
        baseDelay: 10,
        maxDelay: 20
      }
      const client = yield* PaymentClient.make({ ...base, baseUrl: server.url, keyRing: signersV1, retry }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      yield* client.createOrder(input)
      // The default of 4 attempts applied.
      expect(server.attempts).toHaveLength(4)
    })
  )

  it.effect("a PEM given as a plain string, not Redacted, is refused", () =>
    Effect.gen(function* () {
      const error = yield* fail({
        ...base,
        crypto: NodeCrypto,
        privateKeys: { 1: merchantV1.privatePkcs8Pem as unknown as Redacted.Redacted<string> }
      })
      expect(error.reason).toBe("InvalidOption")
    })
  )

  it.scopedLive("a signer that fails is a ConfigurationError (BadKey), not retried", () =>
    Effect.gen(function* () {
      const server = yield* faultServer((attempt) => success(attempt))
      const broken = KeyRing.make({ 1: { modulusLength: 2048, sign: () => Promise.reject(new Error("HSM offline")) } })
      const client = yield* clientFor(server.url, undefined, { keyRing: broken })
      const error = expectTag(yield* Effect.flip(client.createOrder(input)), "ConfigurationError")
      expect(error.reason).toBe("BadKey")
      expect(error.message).toContain("HSM offline")
      expect(server.attempts).toHaveLength(0)
    })
  )
})
