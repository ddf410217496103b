import { describe, expect, it } from "@effect/vitest"
import { readBody } from "@pc/test-support"
import { Effect } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Callback from "../src/Callback.js"
import * as CallbackHandler from "../src/CallbackHandler.js"
import { eventBody, platformKeys, signCallback } from "./support/callbacks.js"
import { APP_KEY } from "./support/vectors.js"

const keys = await platformKeys

const options = (overrides: Partial<Callback.VerifierOptions> = {}): Callback.VerifierOptions => ({
  environment: "production",
  appKey: APP_KEY,
  platformKeys: keys,
  ...overrides
})

const verifierFor = (overrides: Partial<Callback.VerifierOptions> = {}) => Callback.make(options(overrides))

const expectReason = (error: Callback.CallbackVerificationError, reason: Callback.CallbackVerificationErrorReason) => {
  expect(error.reason, error.message).toBe(reason)
  return error
}

const signedNow = (body: string, key = "platform-production-v1") =>
  Effect.promise(() => signCallback({ key, timestamp: Date.now(), body }))

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

/** Reads a Response's status, content type and JSON body. */
const answer = (response: Response) =>
  Effect.promise(async () => ({
    status: response.status,
    type: response.headers.get("content-type"),
    json: (await response.json()) as { code: string; msg: string | null; data: null }
  }))

describe("Fetch adapter", () => {
  it.live("verifyRequest reads a real Request's raw body", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const request = requestOf(yield* signedNow(body), body)
      const event = yield* CallbackHandler.verifyRequest(request).pipe(
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
        CallbackHandler.verifyRequest(request).pipe(Effect.provideService(Callback.CallbackVerifier, verifier))
      )
      expectReason(error, "BodyAlreadyParsed")
      expect(error.message).toContain("request.clone()")
    })
  )

  it.live("a streamed body of unknown length over maxBodyBytes: BodyTooLarge, read no further, stream cancelled", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ maxBodyBytes: 1024 })
      let pulled = 0
      let cancelled = false
      // An endless body with no Content-Length: reading it whole would never end.
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          pulled++
          controller.enqueue(new Uint8Array(256).fill(0x20))
        },
        cancel: () => {
          cancelled = true
        }
      })
      const init: RequestInit & { readonly duplex: "half" } = {
        method: "POST",
        headers: { "content-type": "application/json", ...(yield* signedNow(eventBody())) },
        body,
        duplex: "half"
      }
      const request = new Request("http://127.0.0.1/callbacks/payment", init)
      expect(request.headers.get("content-length")).toBeNull()
      const error = yield* Effect.flip(
        CallbackHandler.verifyRequest(request).pipe(Effect.provideService(Callback.CallbackVerifier, verifier))
      )
      expectReason(error, "BodyTooLarge")
      expect(cancelled).toBe(true)
      expect(pulled).toBeLessThan(16)
    })
  )

  it.live("a declared Content-Length over maxBodyBytes is refused before reading", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ maxBodyBytes: 64 })
      const body = eventBody()
      const request = requestOf({ ...(yield* signedNow(body)), "content-length": String(body.length) }, body)
      const error = yield* Effect.flip(
        CallbackHandler.verifyRequest(request).pipe(Effect.provideService(Callback.CallbackVerifier, verifier))
      )
      expectReason(error, "BodyTooLarge")
    })
  )

  it.live("handleRequest answers 200 / 401 / 400 / 500 with an envelope-like JSON body", () =>
    Effect.gen(function* () {
      const live = Callback.layer(options())
      const seen: Array<string> = []
      const handle = (
        request: Request,
        onEvent: CallbackHandler.EventHandler<Error, never> = (e) => Effect.sync(() => void seen.push(e.eventId))
      ) => CallbackHandler.handleRequest(request, onEvent).pipe(Effect.provide(live))

      const body = eventBody()
      const ok = yield* answer(yield* handle(requestOf(yield* signedNow(body), body)))
      expect(ok).toEqual({ status: 200, type: "application/json", json: { code: "SUCCESS", msg: null, data: null } })
      expect(seen).toEqual(["evt_01"])

      const forged = yield* answer(yield* handle(requestOf(yield* signedNow(body), body.replace("PAID", "FAILED"))))
      expect(forged.status).toBe(401)
      expect(forged.json).toEqual({ code: "signError", msg: "signature verification failed: BadSignature", data: null })

      const notAnEvent = '{"hello":"world"}'
      const malformed = yield* answer(yield* handle(requestOf(yield* signedNow(notAnEvent), notAnEvent)))
      expect(malformed.status).toBe(400)
      expect(malformed.json).toMatchObject({ code: "paramError" })

      const other = eventBody({ eventId: "evt_02" })
      const failing = yield* answer(
        yield* handle(requestOf(yield* signedNow(other), other), () => Effect.fail(new Error("database down")))
      )
      expect(failing.status).toBe(500)
      expect(failing.json).toMatchObject({ code: "internalError" })
    })
  )

  it.live("the layer provided per request: the same captured delivery twice is 200, then 401 Replayed", () =>
    Effect.gen(function* () {
      // What a route handler that does Effect.provide(live) on every request does.
      const live = Callback.layer(options())
      const body = eventBody()
      const captured = yield* signedNow(body)
      const first = yield* answer(
        yield* CallbackHandler.handleRequest(requestOf(captured, body), () => Effect.void).pipe(Effect.provide(live))
      )
      expect(first.status).toBe(200)
      const replay = yield* answer(
        yield* CallbackHandler.handleRequest(requestOf(captured, body), () => Effect.void).pipe(Effect.provide(live))
      )
      expect(replay).toMatchObject({
        status: 401,
        json: { code: "signError", msg: "signature verification failed: Replayed" }
      })
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
          CallbackHandler.handleNodeRequest(req, res, (event) =>
            Effect.sync(() => void seen.push(event.eventType))
          ).pipe(Effect.provideService(Callback.CallbackVerifier, verifier))
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
        void readBody(req).then((raw) => {
          Object.assign(req, { body: raw })
          void Effect.runPromise(
            CallbackHandler.verifyNodeRequest(req).pipe(
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
        void readBody(req).then((raw) => {
          Object.assign(req, { body: JSON.parse(raw.toString("utf8")) })
          void Effect.runPromise(
            CallbackHandler.verifyNodeRequest(req).pipe(
              Effect.provideService(Callback.CallbackVerifier, verifier),
              Effect.tapError((e) => Effect.sync(() => void errors.push(e))),
              Effect.ignore,
              Effect.zipRight(CallbackHandler.handleNodeRequest(req, res, () => Effect.void)),
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

  it.scopedLive(
    "req.rawBody kept beside a parsed req.body (NestJS rawBody: true, express.json({ verify })) is used",
    () =>
      Effect.gen(function* () {
        const verifier = yield* verifierFor({ replayGuard: false })
        const server = yield* nodeServer((req, res) => {
          void readBody(req).then((raw) => {
            // NestJS keeps a Buffer; a hand-written verify() recipe may keep the text.
            const rawBody = req.url?.endsWith("?text") ? raw.toString("utf8") : raw
            Object.assign(req, { body: JSON.parse(raw.toString("utf8")), rawBody })
            void Effect.runPromise(
              CallbackHandler.handleNodeRequest(req, res, () => Effect.void).pipe(
                Effect.provideService(Callback.CallbackVerifier, verifier)
              )
            )
          })
        })
        const body = eventBody()
        const headers = yield* signedNow(body)
        expect((yield* deliver(server.url, headers, body)).status).toBe(200)
        expect((yield* deliver(`${server.url}?text`, headers, body)).status).toBe(200)
      })
  )

  it.live("the BodyAlreadyParsed message names the fixes: express.raw(), req.rawBody, Next.js bodyParser: false", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const parsed = {
        headers: {},
        body: { eventId: "evt_01" },
        readableEnded: true,
        on: () => undefined,
        removeListener: () => undefined
      }
      const error = yield* Effect.flip(
        CallbackHandler.verifyNodeRequest(parsed).pipe(Effect.provideService(Callback.CallbackVerifier, verifier))
      )
      expectReason(error, "BodyAlreadyParsed")
      expect(error.message).toContain("express.raw(")
      expect(error.message).toContain("rawBody")
      expect(error.message).toContain("api: { bodyParser: false }")
    })
  )

  it.scopedLive("req.body = {} left by a body parser that did not read the stream: the stream is read", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const server = yield* nodeServer((req, res) => {
        Object.assign(req, { body: {} })
        void Effect.runPromise(
          CallbackHandler.handleNodeRequest(req, res, () => Effect.void).pipe(
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
          CallbackHandler.handleNodeRequest(req, res, () => Effect.void).pipe(
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

describe("answerOf", () => {
  it("maps reasons to statuses", () => {
    const error = (reason: Callback.CallbackVerificationErrorReason) =>
      new Callback.CallbackVerificationError({
        message: "",
        reason,
        environment: "production",
        header: undefined,
        keyVersion: undefined,
        localClockAheadMs: undefined
      })
    expect(CallbackHandler.answerOf(undefined).status).toBe(200)
    expect(CallbackHandler.answerOf(error("Replayed")).status).toBe(401)
    expect(CallbackHandler.answerOf(error("UnknownKeyVersion")).status).toBe(401)
    expect(CallbackHandler.answerOf(error("MalformedBody")).status).toBe(400)
    expect(CallbackHandler.answerOf(error("BodyAlreadyParsed")).status).toBe(500)
    expect(CallbackHandler.answerOf("HandlerFailed").status).toBe(500)
  })
})
