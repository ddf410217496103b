import { describe, expect, it } from "@effect/vitest"
import { KeyRing } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { Effect, Layer, TestClock } from "effect"
import fc from "fast-check"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Callback from "../src/Callback.js"
import type * as ReplayGuard from "../src/ReplayGuard.js"
import { eventBody, platformKeys, signCallback } from "./support/callbacks.js"
import { APP_KEY, OTHER_APP_KEY, keyOf } from "./support/vectors.js"

const keys = await platformKeys
const productionOnly: Callback.PlatformKeyRing = { production: keys.production }

const verifierFor = (options: Partial<Callback.VerifierOptions> = {}) =>
  Callback.make({ environment: "production", appKey: APP_KEY, platformKeys: keys, ...options })

const expectReason = (error: Callback.CallbackVerificationError, reason: Callback.CallbackVerificationErrorReason) => {
  expect(error.reason, error.message).toBe(reason)
  return error
}

const signedNow = (
  body: string,
  key = "platform-production-v1",
  extra: { keyVersion?: number; appKey?: string } = {}
) => Effect.promise(() => signCallback({ key, timestamp: Date.now(), body, ...extra }))

/** A Fetch Request as a route handler receives it. */
const requestOf = (headers: Record<string, string>, body: string | Uint8Array) =>
  new Request("http://127.0.0.1/callbacks/payment", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body
  })

/** A real node:http server on 127.0.0.1 running `handler`, closed with the scope. */
const nodeServer = (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ readonly url: string; readonly close: () => Promise<void> }>((resolve) => {
          const server = createServer(handler)
          server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as AddressInfo
            resolve({
              url: `http://127.0.0.1:${port}/callbacks/payment`,
              close: () =>
                new Promise((done) => {
                  server.closeAllConnections()
                  server.close(() => done())
                })
            })
          })
        })
    ),
    (server) => Effect.promise(() => server.close())
  )

/** POSTs a callback the way the service does: compact JSON body, the three headers. */
const deliver = (url: string, headers: Record<string, string>, body: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body
    })
    return { status: response.status, body: (await response.json()) as { code: string; msg: string | null } }
  })

describe("verify", () => {
  it.live("a production callback signed with the production platform key decodes to the event", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const event = yield* verifier.verify({ headers: yield* signedNow(body), body })
      expect(event.eventType).toBe("order.paid")
      expect(event.outerOrder).toBe("M-1001")
      expect(event.status).toBe("PAID")
    })
  )

  it.live("a sandbox callback verifies with the sandbox key in a sandbox verifier", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ environment: "sandbox" })
      const body = eventBody({ eventType: "order.failed", status: "FAILED" })
      const event = yield* verifier.verify({ headers: yield* signedNow(body, "platform-sandbox-v1"), body })
      expect(event.eventType).toBe("order.failed")
    })
  )

  it.live("a body re-serialised with JSON.stringify(JSON.parse(body), null, 1) is refused, naming the raw body", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const headers = yield* signedNow(body)
      const reformatted = JSON.stringify(JSON.parse(body), null, 1)
      const error = expectReason(yield* Effect.flip(verifier.verify({ headers, body: reformatted })), "BadSignature")
      expect(error.message).toMatch(/did you pass the raw body\?/i)
      expect(error.message).toMatch(/re-serialised the JSON changes the bytes/)
      expect(error.keyVersion).toBe(1)
    })
  )

  it.live("a body with its keys reordered is refused", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const headers = yield* signedNow(body)
      const parsed = JSON.parse(body) as Record<string, string>
      const reordered = JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()))
      expectReason(yield* Effect.flip(verifier.verify({ headers, body: reordered })), "BadSignature")
    })
  )

  it.live("the sandbox key is refused in production: WrongEnvironment when the ring knows it, else BadSignature", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "platform-sandbox-v1")
      const both = yield* verifierFor()
      const error = expectReason(yield* Effect.flip(both.verify({ headers, body })), "WrongEnvironment")
      expect(error.message).toContain("sandbox platform key")
      const only = yield* verifierFor({ platformKeys: productionOnly })
      expectReason(yield* Effect.flip(only.verify({ headers, body })), "BadSignature")
    })
  )

  it.live("the production key is refused in sandbox", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "platform-production-v1")
      const verifier = yield* verifierFor({ environment: "sandbox" })
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "WrongEnvironment")
    })
  )

  it.live("the merchant's own key never verifies a callback", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "merchant-v1")
      const verifier = yield* verifierFor()
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "BadSignature")
    })
  )

  it.live("an unknown key version is refused with UnknownKeyVersion, listing the known ones", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "platform-production-v1", { keyVersion: 2 })
      const verifier = yield* verifierFor()
      const error = expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "UnknownKeyVersion")
      expect(error.keyVersion).toBe(2)
      expect(error.message).toContain("known: 1")
    })
  )

  it.live("a ring with two versions verifies both during a rotation (no downtime)", () =>
    Effect.gen(function* () {
      // merchant-v2's key stands in for a newly published production platform key, version 2.
      const rotated = yield* Effect.promise(() =>
        KeyRing.importVerifiers(NodeCrypto, {
          1: keyOf("platform-production-v1").publicSpkiPem,
          2: keyOf("merchant-v2").publicSpkiPem
        })
      )
      const verifier = yield* verifierFor({ platformKeys: { production: rotated } })
      const body = eventBody()
      const old = yield* signedNow(body, "platform-production-v1", { keyVersion: 1 })
      const next = yield* signedNow(eventBody({ eventId: "evt_02" }), "merchant-v2", { keyVersion: 2 })
      expect((yield* verifier.verify({ headers: old, body })).eventId).toBe("evt_01")
      expect((yield* verifier.verify({ headers: next, body: eventBody({ eventId: "evt_02" }) })).eventId).toBe("evt_02")
      // The version header selects the key: v1's signature under version 2 fails.
      const mixed = { ...old, "X-R-Key-Version": "2" }
      expectReason(yield* Effect.flip(verifier.verify({ headers: mixed, body })), "BadSignature")
    })
  )

  it.live("a callback signed for another appKey is refused (the appKey is your own)", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "platform-production-v1", { appKey: OTHER_APP_KEY })
      const verifier = yield* verifierFor()
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "BadSignature")
    })
  )

  it.live("missing and malformed headers have their own reasons", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ replayGuard: false })
      const body = eventBody()
      const headers = yield* signedNow(body)
      const { "X-R-Ts": _ts, ...noTimestamp } = headers
      const missing = expectReason(yield* Effect.flip(verifier.verify({ headers: noTimestamp, body })), "MissingHeader")
      expect(missing.header).toBe("X-R-Ts")
      const urlEncoded = { ...headers, "X-R-Signature": encodeURIComponent(headers["X-R-Signature"]) }
      const malformed = expectReason(
        yield* Effect.flip(verifier.verify({ headers: urlEncoded, body })),
        "MalformedHeader"
      )
      expect(malformed.message).toMatch(/URL-encoded/)
      expectReason(
        yield* Effect.flip(verifier.verify({ headers: { ...headers, "X-R-Key-Version": "v1" }, body })),
        "MalformedHeader"
      )
    })
  )

  it.live("a correctly signed body that is not an event is MalformedBody", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = '{"orderSn":"PC1","status":"PAID"}'
      const error = expectReason(
        yield* Effect.flip(verifier.verify({ headers: yield* signedNow(body), body })),
        "MalformedBody"
      )
      expect(error.message).toContain("eventId")
    })
  )
})

describe("the +-5 minute window (TestClock)", () => {
  const timestamp = 1_763_712_005_000

  it.effect("X-R-Ts exactly 5 minutes old is accepted; 5 minutes and 1 ms is StaleTimestamp", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ replayGuard: false })
      const body = eventBody()
      const headers = yield* Effect.promise(() => signCallback({ key: "platform-production-v1", timestamp, body }))
      yield* TestClock.setTime(timestamp + 5 * 60 * 1000)
      yield* verifier.verify({ headers, body })
      yield* TestClock.adjust(1)
      const error = expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "StaleTimestamp")
      expect(error.skewMs).toBe(-(5 * 60 * 1000 + 1))
      expect(error.message).toMatch(/300 s behind this machine's clock/)
    })
  )

  it.effect("X-R-Ts 6 minutes in the future is StaleTimestamp too", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const headers = yield* Effect.promise(() => signCallback({ key: "platform-production-v1", timestamp, body }))
      yield* TestClock.setTime(timestamp - 6 * 60 * 1000)
      const error = expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "StaleTimestamp")
      expect(error.message).toMatch(/ahead of this machine's clock/)
    })
  )
})

describe("replay guard", () => {
  it.live("the default in-memory guard refuses the same delivery twice; a fresh re-signed delivery passes", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const headers = yield* signedNow(body)
      yield* verifier.verify({ headers, body })
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "Replayed")
      // The service signs each redelivery afresh (new X-R-Ts): a genuine redelivery is not a replay.
      yield* Effect.sleep("2 millis")
      yield* verifier.verify({ headers: yield* signedNow(body), body })
    })
  )

  it.live("a custom async guard gets the delivery's entry; its failure refuses the callback", () =>
    Effect.gen(function* () {
      const entries: Array<ReplayGuard.ReplayEntry> = []
      const custom: ReplayGuard.ReplayGuard = {
        seenBefore: async (entry) => {
          entries.push(entry)
          return entries.filter((e) => e.key === entry.key).length > 1
        }
      }
      const verifier = yield* verifierFor({ replayGuard: custom })
      const body = eventBody()
      const headers = yield* signedNow(body)
      yield* verifier.verify({ headers, body })
      expect(entries[0]).toMatchObject({
        environment: "production",
        keyVersion: 1,
        timestamp: Number(headers["X-R-Ts"]),
        signature: headers["X-R-Signature"],
        eventId: "evt_01",
        expiresAt: Number(headers["X-R-Ts"]) + 5 * 60 * 1000
      })
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "Replayed")

      const failing = yield* verifierFor({
        replayGuard: { seenBefore: () => Promise.reject(new Error("redis down")) }
      })
      const error = expectReason(yield* Effect.flip(failing.verify({ headers, body })), "ReplayGuardFailed")
      expect(error.message).toContain("redis down")
    })
  )

  it.live("an Effect guard works too; a forged callback never reaches the guard", () =>
    Effect.gen(function* () {
      let calls = 0
      const verifier = yield* verifierFor({
        replayGuard: { seenBefore: () => Effect.sync(() => ++calls > 1) }
      })
      const body = eventBody()
      const headers = yield* signedNow(body)
      yield* Effect.flip(verifier.verify({ headers, body: body.replace("10.00", "99.00") }))
      expect(calls).toBe(0)
      yield* verifier.verify({ headers, body })
      expect(calls).toBe(1)
    })
  )
})

describe("Fetch adapter", () => {
  it.live("verifyRequest reads a real Request's raw body", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const request = requestOf(yield* signedNow(body), body)
      const event = yield* Callback.verifyRequest(request).pipe(
        Effect.provideService(Callback.CallbackVerifier, verifier)
      )
      expect(event.orderSn).toBe("PC202611210001")
    })
  )

  it.live("a Request whose body was already read is BodyAlreadyParsed", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const request = requestOf(yield* signedNow(body), body)
      yield* Effect.promise(() => request.json())
      const error = yield* Effect.flip(
        Callback.verifyRequest(request).pipe(Effect.provideService(Callback.CallbackVerifier, verifier))
      )
      expectReason(error, "BodyAlreadyParsed")
      expect(error.message).toContain("request.clone()")
    })
  )

  it.live("handleRequest answers 200 / 401 / 400 / 500 with an envelope-like JSON body", () =>
    Effect.gen(function* () {
      const live = Layer.effect(Callback.CallbackVerifier, verifierFor())
      const seen: Array<string> = []
      const body = eventBody()
      const headers = yield* signedNow(body)
      const handle = (
        request: Request,
        onEvent: Callback.EventHandler<Error, never> = (e) => Effect.sync(() => void seen.push(e.eventId))
      ) => Callback.handleRequest(request, onEvent).pipe(Effect.provide(live))
      const answer = (response: Response) =>
        Effect.promise(async () => ({
          status: response.status,
          type: response.headers.get("content-type"),
          json: await response.json()
        }))

      // One layer per call here, so each handle() gets a fresh replay guard.
      const ok = yield* answer(yield* handle(requestOf(headers, body)))
      expect(ok).toEqual({ status: 200, type: "application/json", json: { code: "SUCCESS", msg: null, data: null } })
      expect(seen).toEqual(["evt_01"])

      const forged = yield* answer(yield* handle(requestOf(headers, body.replace("PAID", "FAILED"))))
      expect(forged.status).toBe(401)
      expect(forged.json).toEqual({ code: "signError", msg: "signature verification failed: BadSignature", data: null })

      const notAnEvent = '{"hello":"world"}'
      const malformed = yield* answer(yield* handle(requestOf(yield* signedNow(notAnEvent), notAnEvent)))
      expect(malformed.status).toBe(400)
      expect(malformed.json).toMatchObject({ code: "paramError" })

      const failing = yield* answer(
        yield* handle(requestOf(headers, body), () => Effect.fail(new Error("database down")))
      )
      expect(failing.status).toBe(500)
      expect(failing.json).toMatchObject({ code: "internalError" })
    })
  )
})

describe("Node adapter (node:http)", () => {
  it.scopedLive("handleNodeRequest reads the raw body from the stream, verifies, answers 200", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const seen: Array<string> = []
      const server = yield* nodeServer((req, res) => {
        void Effect.runPromise(
          Callback.handleNodeRequest(req, res, (event) => Effect.sync(() => void seen.push(event.eventType))).pipe(
            Effect.provideService(Callback.CallbackVerifier, verifier)
          )
        )
      })
      const body = eventBody()
      const ok = yield* deliver(server.url, yield* signedNow(body), body)
      expect(ok).toEqual({ status: 200, body: { code: "SUCCESS", msg: null, data: null } })
      expect(seen).toEqual(["order.paid"])
      const stale = yield* Effect.promise(() =>
        signCallback({ key: "platform-production-v1", timestamp: Date.now() - 10 * 60 * 1000, body })
      )
      const refused = yield* deliver(server.url, stale, body)
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe("signError")
    })
  )

  it.scopedLive("Express stand-in: req.body as a Buffer (express.raw()) is used as the raw body", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const server = yield* nodeServer((req, res) => {
        // What express.raw({ type: "application/json" }) does before the route handler.
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          Object.assign(req, { body: Buffer.concat(chunks) })
          void Effect.runPromise(
            Callback.verifyNodeRequest(req).pipe(
              Effect.provideService(Callback.CallbackVerifier, verifier),
              Effect.match({
                onFailure: (e) => res.writeHead(401).end(e.reason),
                onSuccess: (event) => res.writeHead(200).end(event.eventId)
              })
            )
          )
        })
      })
      const body = eventBody()
      const response = yield* Effect.promise(() =>
        signCallback({ key: "platform-production-v1", timestamp: Date.now(), body }).then((headers) =>
          fetch(server.url, { method: "POST", headers, body }).then(async (r) => [r.status, await r.text()])
        )
      )
      expect(response).toEqual([200, "evt_01"])
    })
  )

  it.scopedLive("Express stand-in: req.body already parsed by express.json() fails with a clear error and a 500", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const errors: Array<Callback.CallbackVerificationError> = []
      const server = yield* nodeServer((req, res) => {
        // What express.json() does: the stream is consumed and req.body becomes an object.
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
          void Effect.runPromise(
            Callback.verifyNodeRequest(req).pipe(
              Effect.provideService(Callback.CallbackVerifier, verifier),
              Effect.tapError((e) => Effect.sync(() => void errors.push(e))),
              Effect.ignore,
              Effect.zipRight(Callback.handleNodeRequest(req, res, () => Effect.void)),
              Effect.provideService(Callback.CallbackVerifier, verifier)
            )
          )
        })
      })
      const body = eventBody()
      const answer = yield* deliver(server.url, yield* signedNow(body), body)
      expect(answer.status).toBe(500)
      expect(answer.body.code).toBe("internalError")
      expect(errors[0]?.reason).toBe("BodyAlreadyParsed")
      expect(errors[0]?.message).toContain("express.raw(")
      expect(errors[0]?.message).toMatch(/before the JSON body parser/)
    })
  )

  it.scopedLive("req.body = {} left by a body parser that did not read the stream: the stream is read", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const server = yield* nodeServer((req, res) => {
        Object.assign(req, { body: {} })
        void Effect.runPromise(
          Callback.handleNodeRequest(req, res, () => Effect.void).pipe(
            Effect.provideService(Callback.CallbackVerifier, verifier)
          )
        )
      })
      const body = eventBody()
      const answer = yield* deliver(server.url, yield* signedNow(body), body)
      expect(answer.status).toBe(200)
    })
  )

  it.scopedLive("a body over maxBodyBytes is refused with 400", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ maxBodyBytes: 64 })
      const server = yield* nodeServer((req, res) => {
        void Effect.runPromise(
          Callback.handleNodeRequest(req, res, () => Effect.void).pipe(
            Effect.provideService(Callback.CallbackVerifier, verifier)
          )
        )
      })
      const body = eventBody()
      const answer = yield* deliver(server.url, yield* signedNow(body), body)
      expect(answer.status).toBe(400)
    })
  )
})

describe("properties (fast-check)", () => {
  const randomCase = (name: string) =>
    fc
      .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
      .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""))

  it("any casing of X-R-Ts / X-R-Key-Version / X-R-Signature, body as string or bytes, in a record or Headers: verifies", async () => {
    const verifier = await Effect.runPromise(verifierFor({ replayGuard: false }))
    const body = eventBody()
    const signed = await signCallback({ key: "platform-production-v1", timestamp: Date.now(), body })
    await fc.assert(
      fc.asyncProperty(
        randomCase("X-R-Ts"),
        randomCase("X-R-Key-Version"),
        randomCase("X-R-Signature"),
        fc.boolean(),
        fc.boolean(),
        async (ts, kv, sig, asBytes, asFetchHeaders) => {
          const record = { [ts]: signed["X-R-Ts"], [kv]: signed["X-R-Key-Version"], [sig]: signed["X-R-Signature"] }
          const event = await Effect.runPromise(
            verifier.verify({
              headers: asFetchHeaders ? new Headers(record) : record,
              body: asBytes ? new TextEncoder().encode(body) : body
            })
          )
          expect(event.eventId).toBe("evt_01")
        }
      ),
      { numRuns: 100 }
    )
  })

  it("any single byte flipped in the body fails with BadSignature", async () => {
    const verifier = await Effect.runPromise(verifierFor({ replayGuard: false }))
    const body = eventBody({ outerOrder: "订单-ü-1003" })
    const bytes = new TextEncoder().encode(body)
    const headers = await signCallback({ key: "platform-production-v1", timestamp: Date.now(), body: bytes })
    expect((await Effect.runPromise(verifier.verify({ headers, body: bytes }))).outerOrder).toBe("订单-ü-1003")
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), async (index, mask) => {
        const flipped = bytes.slice()
        flipped[index] = flipped[index]! ^ mask
        const error = await Effect.runPromise(Effect.flip(verifier.verify({ headers, body: flipped })))
        expect(error.reason).toBe("BadSignature")
      }),
      { numRuns: 200 }
    )
  })
})

describe("make and importPlatformKeys", () => {
  it.effect("no platform keys for the environment is a ConfigurationError", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(verifierFor({ environment: "gray" }))
      expect(error.reason).toBe("UnknownKeyVersion")
      expect(error.message).toContain("platformKeys.gray")
    })
  )

  it.effect("an appKey that is not a UUID is refused", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(verifierFor({ appKey: "merchant" }))
      expect(error.option).toBe("appKey")
    })
  )

  it.effect("importPlatformKeys imports PEM by environment and refuses weak keys", () =>
    Effect.gen(function* () {
      const ring = yield* Callback.importPlatformKeys(NodeCrypto, {
        production: { 1: keyOf("platform-production-v1").publicSpkiPem, 2: keyOf("platform-sandbox-v1").publicPkcs1Pem }
      })
      expect(ring.production?.versions).toEqual([1, 2])
      expect(ring.sandbox).toBeUndefined()
      const weak = yield* Effect.flip(
        Callback.importPlatformKeys(NodeCrypto, { sandbox: { 1: keyOf("weak-1024").publicSpkiPem } })
      )
      expect(weak.reason).toBe("WeakKey")
    })
  )

  it("answerOf maps reasons to statuses", () => {
    const error = (reason: Callback.CallbackVerificationErrorReason) =>
      new Callback.CallbackVerificationError({
        message: "",
        reason,
        environment: "production",
        header: undefined,
        keyVersion: undefined,
        skewMs: undefined
      })
    expect(Callback.answerOf(undefined).status).toBe(200)
    expect(Callback.answerOf(error("Replayed")).status).toBe(401)
    expect(Callback.answerOf(error("UnknownKeyVersion")).status).toBe(401)
    expect(Callback.answerOf(error("MalformedBody")).status).toBe(400)
    expect(Callback.answerOf(error("BodyAlreadyParsed")).status).toBe(500)
    expect(Callback.answerOf("HandlerFailed").status).toBe(500)
  })
})
