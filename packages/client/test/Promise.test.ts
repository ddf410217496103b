// The Promise facade from plain async/await code: no Effect in sight, errors checked with instanceof.
import { KeyRing } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { WebCrypto } from "@pc/crypto-web"
import { readBody } from "@pc/test-support"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import * as PaymentConnect from "../src/Promise.js"
import * as PaymentConnectNode from "../src/PromiseNode.js"
import * as Client from "../src/index.js"
import * as ClientOnNode from "../src/indexNode.js"
import { eventBody, signCallback } from "./support/callbacks.js"
import { type Attempt, type FaultServer, type Reply, startFaultServer, success } from "./support/FaultServer.js"
import { APP_KEY, keyOf } from "./support/vectors.js"

const servers: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

const serve = async (script: (attempt: Attempt, index: number) => Reply): Promise<FaultServer> => {
  const server = await startFaultServer(script)
  servers.push(server)
  return server
}

const options = (baseUrl: string): PaymentConnect.PaymentClientOptions => ({
  environment: "production",
  baseUrl,
  appKey: APP_KEY,
  crypto: NodeCrypto,
  privateKeys: { 1: keyOf("merchant-v1").privatePkcs8Pem },
  timeout: 2000,
  retry: { baseDelay: 20, maxDelay: 100 },
  callbacks: {
    platformKeys: {
      production: { 1: keyOf("platform-production-v1").publicSpkiPem },
      sandbox: { 1: keyOf("platform-sandbox-v1").publicSpkiPem }
    }
  }
})

const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error("expected a rejection")
    },
    (error: unknown) => error
  )

const input = { orderId: "M-1001", amount: "10.00", currency: "USD" }

describe("createPaymentClient on Node (the node export condition of @pc/client/promise)", () => {
  // Node's fetch announces itself with Sec-Fetch-Mode; node:http sends no such header.
  it("sends with node:http by default, and with fetch on the fetch entry", async () => {
    const server = await serve((attempt) => success(attempt))
    const onNode = await PaymentConnectNode.createPaymentClient(options(server.url))
    expect((await onNode.createOrder(input)).outerOrder).toBe("M-1001")
    const onFetch = await PaymentConnect.createPaymentClient(options(server.url))
    await onFetch.createOrder({ ...input, orderId: "M-1002" })
    expect(server.attempts.map((attempt) => attempt.headers["sec-fetch-mode"])).toEqual([undefined, "cors"])
    expect(server.attempts.every((attempt) => attempt.signatureValid)).toBe(true)
  })

  it("sends with a fetch given as an option instead", async () => {
    const server = await serve((attempt) => success(attempt))
    let calls = 0
    const client = await PaymentConnectNode.createPaymentClient({
      ...options(server.url),
      fetch: (request, init) => {
        calls++
        return fetch(request, init)
      }
    })
    await client.createOrder(input)
    expect(calls).toBe(1)
    expect(server.attempts[0]!.headers["sec-fetch-mode"]).toBe("cors")
  })

  it('is the same facade as the root\'s Promise namespace on Node (the node condition of ".")', async () => {
    expect(Object.keys(ClientOnNode).sort()).toEqual(Object.keys(Client).sort())
    expect(ClientOnNode.Promise).toBe(PaymentConnectNode)
    expect(ClientOnNode.PaymentClient).toBe(Client.PaymentClient)
    const server = await serve((attempt) => success(attempt))
    const client = await ClientOnNode.Promise.createPaymentClient(options(server.url))
    await client.createOrder(input)
    expect(server.attempts[0]!.headers["sec-fetch-mode"]).toBeUndefined()
  })

  it("exports everything the fetch entry exports", () => {
    expect(Object.keys(PaymentConnectNode).sort()).toEqual(Object.keys(PaymentConnect).sort())
    expect(PaymentConnectNode.SignatureRejectedError).toBe(PaymentConnect.SignatureRejectedError)
  })
})

describe("createPaymentClient: createOrder", () => {
  it("creates an order on the global fetch, signed", async () => {
    const server = await serve((attempt) => success(attempt))
    const client = await PaymentConnect.createPaymentClient(options(server.url))
    const order = await client.createOrder({ orderId: "M-1001", amount: 10, currency: "JPY" })
    expect(order.outerOrder).toBe("M-1001")
    expect(server.attempts[0]!.body).toBe('{"orderId":"M-1001","amount":"10","currency":"JPY"}')
    expect(server.attempts[0]!.signatureValid).toBe(true)
    expect(client.keyVersion).toBe(1)
  })

  it("without a crypto option, imports the PEM keys with WebCrypto (the default)", async () => {
    const server = await serve((attempt) => success(attempt))
    const { crypto: _c, ...withoutCrypto } = options(server.url)
    const client = await PaymentConnect.createPaymentClient({
      ...withoutCrypto,
      privateKeys: { 1: keyOf("merchant-v1").privatePkcs1Pem }
    })
    await client.createOrder(input)
    expect(server.attempts[0]!.signatureValid).toBe(true)
    const body = eventBody()
    const headers = await signCallback({ key: "platform-production-v1", timestamp: Date.now(), body })
    expect((await client.verifyCallback({ headers, body })).eventId).toBe("evt_01")
  })

  it("works with WebCrypto keys and a custom fetch", async () => {
    const server = await serve((attempt) => success(attempt))
    let calls = 0
    const client = await PaymentConnect.createPaymentClient({
      ...options(server.url),
      crypto: WebCrypto,
      privateKeys: { 2: keyOf("merchant-v2").privatePkcs1Pem },
      fetch: (input, init) => {
        calls++
        return fetch(input, init)
      }
    })
    await client.createOrder(input)
    expect(calls).toBe(1)
    expect(server.attempts[0]!.keyVersion).toBe("2")
    expect(server.attempts[0]!.signatureValid).toBe(true)
  })

  it("retries two 503s and succeeds on the third attempt, each signed afresh", async () => {
    const server = await serve((attempt, index) =>
      index < 2 ? { kind: "raw", status: 503, body: "<h1>busy</h1>", contentType: "text/html" } : success(attempt)
    )
    const client = await PaymentConnect.createPaymentClient(options(server.url))
    await client.createOrder(input)
    expect(server.attempts).toHaveLength(3)
    expect(new Set(server.attempts.map((a) => a.timestamp)).size).toBe(3)
    expect(server.attempts.every((a) => a.signatureValid)).toBe(true)
  })

  it("signError throws SignatureRejectedError, once", async () => {
    const server = await serve(() => ({
      kind: "envelope",
      status: 401,
      code: "signError",
      msg: "signature verification failed: signature not valid"
    }))
    const client = await PaymentConnect.createPaymentClient(options(server.url))
    const error = await rejection(client.createOrder(input))
    expect(error).toBeInstanceOf(PaymentConnect.SignatureRejectedError)
    expect(error).toBeInstanceOf(PaymentConnect.PaymentConnectError)
    expect(error).toBeInstanceOf(Error)
    const e = error as PaymentConnect.SignatureRejectedError
    expect(e.code).toBe("ERR_PC_SIGNATURE_REJECTED")
    expect(e.name).toBe("SignatureRejectedError")
    expect(e.serverMessage).toBe("signature verification failed: signature not valid")
    expect(server.attempts).toHaveLength(1)
  })

  it("paramError throws InvalidRequestError with the field; a local error sends nothing", async () => {
    const server = await serve(() => ({
      kind: "envelope",
      status: 400,
      code: "paramError",
      msg: "currency is not active"
    }))
    const client = await PaymentConnect.createPaymentClient(options(server.url))
    const remote = await rejection(client.createOrder(input))
    expect(remote).toBeInstanceOf(PaymentConnect.InvalidRequestError)
    expect((remote as PaymentConnect.InvalidRequestError).field).toBe("currency")
    expect((remote as PaymentConnect.InvalidRequestError).source).toBe("server")
    const local = await rejection(client.createOrder({ orderId: "M-1", amount: "1.234", currency: "USD" }))
    expect(local).toBeInstanceOf(PaymentConnect.InvalidRequestError)
    expect((local as PaymentConnect.InvalidRequestError).source).toBe("local")
    expect((local as PaymentConnect.InvalidRequestError).field).toBe("amount")
    expect(server.attempts).toHaveLength(1)
  })

  it("duplicateOrder, rateLimited, a hung connection and an HTML page each throw their class", async () => {
    const replies: Record<string, Reply> = {
      dup: { kind: "envelope", status: 409, code: "duplicateOrder", msg: "different amount" },
      rate: { kind: "envelope", status: 429, code: "rateLimited", msg: "slow", headers: { "retry-after": "3600" } },
      hang: { kind: "hang" },
      html: { kind: "raw", status: 502, body: "<html>Bad Gateway</html>", contentType: "text/html" },
      boom: { kind: "envelope", status: 500, code: "internalError", msg: "boom" }
    }
    const server = await serve((attempt) => replies[JSON.parse(attempt.body).orderId as string]!)
    const client = await PaymentConnect.createPaymentClient({
      ...options(server.url),
      timeout: 200,
      retry: { maxAttempts: 2, baseDelay: 10 }
    })
    const errorOf = (orderId: string) => rejection(client.createOrder({ ...input, orderId }))

    const dup = await errorOf("dup")
    expect(dup).toBeInstanceOf(PaymentConnect.DuplicateOrderError)
    expect((dup as PaymentConnect.DuplicateOrderError).code).toBe("ERR_PC_DUPLICATE_ORDER")
    const rate = await errorOf("rate")
    expect(rate).toBeInstanceOf(PaymentConnect.RateLimitedError)
    expect((rate as PaymentConnect.RateLimitedError).retryAfterMs).toBe(3_600_000)
    expect((rate as PaymentConnect.RateLimitedError).serverMessage).toBe("slow")
    const hang = await errorOf("hang")
    expect(hang).toBeInstanceOf(PaymentConnect.TimeoutError)
    expect((hang as PaymentConnect.TimeoutError).code).toBe("ERR_PC_TIMEOUT")
    expect((hang as PaymentConnect.TimeoutError).timeoutMs).toBe(200)
    const html = await errorOf("html")
    expect(html).toBeInstanceOf(PaymentConnect.UnexpectedResponseError)
    expect(html).toMatchObject({ status: 502, contentType: "text/html", excerpt: "<html>Bad Gateway</html>" })
    const boom = await errorOf("boom")
    expect(boom).toBeInstanceOf(PaymentConnect.ServerError)
    expect(boom).toMatchObject({ code: "ERR_PC_SERVER_ERROR", serverCode: "internalError", serverMessage: "boom" })
  })

  it("an unreachable service throws TransportError", async () => {
    const server = await serve((attempt) => success(attempt))
    const url = server.url
    await server.close()
    const client = await PaymentConnect.createPaymentClient({ ...options(url), retry: { maxAttempts: 1 } })
    const error = await rejection(client.createOrder(input))
    expect(error).toBeInstanceOf(PaymentConnect.TransportError)
  })
})

describe("createPaymentClient: configuration", () => {
  it("a weak key rejects creation with ConfigurationError (WeakKey)", async () => {
    const error = await rejection(
      PaymentConnect.createPaymentClient({
        ...options("http://127.0.0.1:4010"),
        privateKeys: { 1: keyOf("weak-1024").privatePkcs8Pem }
      })
    )
    expect(error).toBeInstanceOf(PaymentConnect.ConfigurationError)
    expect((error as PaymentConnect.ConfigurationError).reason).toBe("WeakKey")
    expect((error as PaymentConnect.ConfigurationError).code).toBe("ERR_PC_CONFIGURATION")
  })

  it("no keys, a bad appKey, an unknown current version: ConfigurationError", async () => {
    const { crypto: _c, privateKeys: _p, ...noKeys } = options("http://127.0.0.1:4010")
    for (const bad of [
      noKeys,
      { ...options("http://127.0.0.1:4010"), appKey: "nope" },
      { ...options("http://127.0.0.1:4010"), currentKeyVersion: 7 }
    ]) {
      expect(await rejection(PaymentConnect.createPaymentClient(bad))).toBeInstanceOf(PaymentConnect.ConfigurationError)
    }
  })

  it("a key version that is not a number is named in the error", async () => {
    const privateKeys: Record<string, string> = { v1: keyOf("merchant-v1").privatePkcs8Pem }
    const error = await rejection(
      PaymentConnect.createPaymentClient({ ...options("http://127.0.0.1:4010"), privateKeys })
    )
    expect(error).toBeInstanceOf(PaymentConnect.ConfigurationError)
    expect((error as PaymentConnect.ConfigurationError).message).toContain('key version "v1" is not a natural number')
    expect((error as PaymentConnect.ConfigurationError).option).toBe("privateKeys")
  })

  it("accepts a ready-made key ring of signers", async () => {
    const server = await serve((attempt) => success(attempt))
    const keyRing = await KeyRing.importSigners(NodeCrypto, { 1: keyOf("merchant-v1").privatePkcs8Pem })
    const { crypto: _c, privateKeys: _p, ...rest } = options(server.url)
    const client = await PaymentConnect.createPaymentClient({ ...rest, keyRing, callbacks: undefined })
    await client.createOrder(input)
    expect(server.attempts[0]!.signatureValid).toBe(true)
    const error = await rejection(client.verifyCallback({ headers: {}, body: "" }))
    expect(error).toBeInstanceOf(PaymentConnect.ConfigurationError)
  })
})

describe("createPaymentClient: callbacks", () => {
  const signed = async (body: string, key = "platform-production-v1", timestamp = Date.now()) =>
    signCallback({ key, timestamp, body })

  it("verifyCallback takes headers in any casing and the raw body", async () => {
    const client = await PaymentConnect.createPaymentClient(options("http://127.0.0.1:4010"))
    const body = eventBody()
    const headers = Object.fromEntries(
      Object.entries(await signed(body)).map(([name, value]) => [name.toLowerCase(), value])
    )
    const event = await client.verifyCallback({ headers, body })
    expect(event.eventType).toBe("order.paid")
  })

  it("refusals throw CallbackVerificationError with a reason", async () => {
    const client = await PaymentConnect.createPaymentClient(options("http://127.0.0.1:4010"))
    const body = eventBody()
    const cases: ReadonlyArray<readonly [Promise<Record<string, string>>, string, string]> = [
      [signed(body), JSON.stringify(JSON.parse(body), null, 1), "BadSignature"],
      [signed(body, "platform-sandbox-v1"), body, "WrongEnvironment"],
      [signed(body, "platform-production-v1", Date.now() - 6 * 60 * 1000), body, "StaleTimestamp"],
      [signed(body).then((h) => ({ ...h, "X-R-Key-Version": "9" })), body, "UnknownKeyVersion"]
    ]
    const errors: Array<PaymentConnect.CallbackVerificationError> = []
    for (const [headers, sent, reason] of cases) {
      const error = await rejection(client.verifyCallback({ headers: await headers, body: sent }))
      expect(error).toBeInstanceOf(PaymentConnect.CallbackVerificationError)
      expect(error).toBeInstanceOf(PaymentConnect.PaymentConnectError)
      expect((error as PaymentConnect.CallbackVerificationError).reason).toBe(reason)
      expect((error as PaymentConnect.CallbackVerificationError).code).toBe("ERR_PC_CALLBACK_VERIFICATION")
      errors.push(error as PaymentConnect.CallbackVerificationError)
    }
    const stale = errors[2]!
    expect(stale).toMatchObject({ environment: "production", header: "X-R-Ts", keyVersion: 1 })
    expect(stale.localClockAheadMs).toBeGreaterThanOrEqual(6 * 60 * 1000)
    expect(stale.localClockAheadMs).toBeLessThan(7 * 60 * 1000)
    const headers = await signed(body)
    await client.verifyCallback({ headers, body })
    const replay = await rejection(client.verifyCallback({ headers, body }))
    expect((replay as PaymentConnect.CallbackVerificationError).reason).toBe("Replayed")
  })

  it("verifyCallbackRequest and handleCallbackRequest work on a real Request", async () => {
    const client = await PaymentConnect.createPaymentClient(options("http://127.0.0.1:4010"))
    const body = eventBody()
    const headers = await signed(body)
    const request = () => new Request("http://127.0.0.1/cb", { method: "POST", headers, body })
    expect((await client.verifyCallbackRequest(request())).eventId).toBe("evt_01")
    // The same delivery again is a replay: 401 from the handler.
    const replayed = await client.handleCallbackRequest(request(), () => {})
    expect(replayed.status).toBe(401)
    const fresh = await signed(eventBody({ eventId: "evt_02" }))
    const handled: Array<string> = []
    const ok = await client.handleCallbackRequest(
      new Request("http://127.0.0.1/cb", { method: "POST", headers: fresh, body: eventBody({ eventId: "evt_02" }) }),
      async (event) => {
        handled.push(event.eventId)
      }
    )
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ code: "SUCCESS", msg: null, data: null })
    expect(handled).toEqual(["evt_02"])
  })

  it("nodeCallbackHandler on a real node:http server; verifyNodeCallback refuses an express.json() body", async () => {
    const client = await PaymentConnect.createPaymentClient(options("http://127.0.0.1:4010"))
    const handled: Array<string> = []
    const handler = client.nodeCallbackHandler((event) => {
      handled.push(event.eventId)
    })
    const server: Server = createServer((req, res) => {
      if (req.url === "/parsed") {
        void readBody(req).then((raw) => {
          Object.assign(req, { body: JSON.parse(raw.toString()) })
          client.verifyNodeCallback(req).then(
            () => res.writeHead(200).end("accepted"),
            (error: unknown) =>
              res.writeHead(500).end(error instanceof PaymentConnect.CallbackVerificationError ? error.reason : "other")
          )
        })
        return
      }
      void handler(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    servers.push({
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    })
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const body = eventBody()
    const ok = await fetch(`${base}/cb`, { method: "POST", headers: await signed(body), body })
    expect(ok.status).toBe(200)
    expect(handled).toEqual(["evt_01"])
    const bad = await fetch(`${base}/cb`, { method: "POST", headers: await signed(body), body: `${body} ` })
    expect(bad.status).toBe(401)
    const parsed = await fetch(`${base}/parsed`, { method: "POST", headers: await signed(body), body })
    expect(parsed.status).toBe(500)
    expect(await parsed.text()).toBe("BodyAlreadyParsed")
  })

  it("createCallbackVerifier serves callback-only services", async () => {
    const verifier = await PaymentConnect.createCallbackVerifier({
      environment: "sandbox",
      appKey: APP_KEY,
      crypto: NodeCrypto,
      platformKeys: { sandbox: { 1: keyOf("platform-sandbox-v1").publicSpkiPem } },
      replayGuard: false
    })
    const body = eventBody()
    const headers = await signed(body, "platform-sandbox-v1")
    expect((await verifier.verifyCallback({ headers, body: new TextEncoder().encode(body) })).eventId).toBe("evt_01")
    expect((await verifier.verifyCallback({ headers, body })).eventId).toBe("evt_01")
    const bad = await rejection(
      PaymentConnect.createCallbackVerifier({
        environment: "sandbox",
        appKey: APP_KEY,
        platformKeys: { sandbox: { 1: "x" } }
      })
    )
    expect(bad).toBeInstanceOf(PaymentConnect.ConfigurationError)
    expect((bad as PaymentConnect.ConfigurationError).reason).toBe("BadKey")
  })

  it("createCallbackVerifier imports PEM platform keys with WebCrypto when no crypto is given", async () => {
    const verifier = await PaymentConnect.createCallbackVerifier({
      environment: "production",
      appKey: APP_KEY,
      platformKeys: { production: { 1: keyOf("platform-production-v1").publicSpkiPem } }
    })
    const body = eventBody()
    const headers = await signed(body)
    expect((await verifier.verifyCallback({ headers, body })).eventId).toBe("evt_01")
  })
})
