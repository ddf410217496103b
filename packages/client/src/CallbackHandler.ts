/**
 * HTTP adapters for callbacks: read the raw body of a Fetch `Request` (Hono, Next.js route
 * handlers, workers, Deno, Bun) or a Node `IncomingMessage` / Express request, verify it with the
 * `Callback.CallbackVerifier` in context, run your handler, and answer the service.
 *
 * @since 0.1.0
 */
import type * as Wire from "@pc/core/Wire"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { CallbackVerifier } from "./Callback.js"
import { type BodyResult, readFetchBody, readNodeBody } from "./internal/body.js"
import type { CallbackVerificationError } from "./CallbackVerificationError.js"
import { refusal } from "./internal/refusal.js"

/**
 * The parts of a Fetch `Request` the adapter reads; any `Request` fits.
 *
 * @example
 * ```ts
 * import type { CallbackHandler } from "@pc/client"
 *
 * const request: CallbackHandler.FetchRequest = new Request("http://localhost/callbacks", { method: "POST", body: "{}" })
 * ```
 */
export interface FetchRequest {
  readonly headers: { get(name: string): string | null }
  readonly bodyUsed?: boolean
  /** The body stream, read chunk by chunk so that an oversized body is never held whole. */
  readonly body?: ReadableStream<Uint8Array> | null
  /** Used only when there is no `body` stream. */
  arrayBuffer(): Promise<ArrayBuffer>
}

/**
 * The parts of a Node `IncomingMessage` (or an Express / NestJS request) the Node adapter reads;
 * any `http.IncomingMessage` fits, so `node:http` is never imported.
 *
 * @example
 * ```ts
 * import type { CallbackHandler } from "@pc/client"
 * import type { IncomingMessage } from "node:http"
 *
 * const asNodeRequest = (req: IncomingMessage): CallbackHandler.NodeRequest => req
 * ```
 */
export interface NodeRequest {
  readonly headers: { readonly [name: string]: string | ReadonlyArray<string> | undefined }
  /** Set by body parsers: a Buffer or string (`express.raw()`, `express.text()`) is used; an object (`express.json()`) is refused unless `rawBody` is there. */
  readonly body?: unknown
  /** The raw body kept beside a parsed one: NestJS with `rawBody: true`, or an `express.json({ verify })` recipe that sets it. */
  readonly rawBody?: unknown
  /** True once the body stream was read to its end. */
  readonly readableEnded?: boolean
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown
  on(event: "end", listener: () => void): unknown
  on(event: "error", listener: (error: Error) => void): unknown
  removeListener(event: "data", listener: (chunk: Uint8Array | string) => void): unknown
  removeListener(event: "end", listener: () => void): unknown
  removeListener(event: "error", listener: (error: Error) => void): unknown
}

/**
 * The parts of a Node `ServerResponse` (or an Express `Response`) the Node adapter writes.
 *
 * @example
 * ```ts
 * import type { CallbackHandler } from "@pc/client"
 * import type { ServerResponse } from "node:http"
 *
 * const asNodeResponse = (res: ServerResponse): CallbackHandler.NodeResponse => res
 * ```
 */
export interface NodeResponse {
  writeHead(statusCode: number, headers: { readonly [name: string]: string }): unknown
  end(body: string): unknown
  readonly headersSent?: boolean
}

const verifyBody = (
  read: (maxBodyBytes: number) => Promise<BodyResult>,
  headers: FetchRequest["headers"] | NodeRequest["headers"]
): Effect.Effect<Wire.CallbackEvent, CallbackVerificationError, CallbackVerifier> =>
  Effect.gen(function* () {
    const verifier = yield* CallbackVerifier
    const result = yield* Effect.promise(() => read(verifier.maxBodyBytes))
    if (!result.ok) return yield* refusal(verifier.environment, result.reason, result.message)
    return yield* verifier.verify({ headers, body: result.body })
  })

/**
 * Verifies a callback arriving as a Fetch `Request` (Hono's `c.req.raw`, Next.js route handlers,
 * workers, Deno, Bun), reading the raw body from `request.body`, at most `maxBodyBytes`.
 *
 * Fails with `CallbackVerificationError`, including `BodyAlreadyParsed` when the body was read
 * before (`request.json()` ran first) and `BodyTooLarge`.
 *
 * @example
 * ```ts
 * import { Callback, CallbackHandler } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const verifier = await Effect.runPromise(Callback.make(options)) // once, at startup
 * const eventOf = (request: Request) =>
 *   CallbackHandler.verifyRequest(request).pipe(Effect.provideService(Callback.CallbackVerifier, verifier))
 * ```
 */
export const verifyRequest = (
  request: FetchRequest
): Effect.Effect<Wire.CallbackEvent, CallbackVerificationError, CallbackVerifier> =>
  verifyBody((max) => readFetchBody(request, max), request.headers)

/**
 * Verifies a callback arriving as a Node `IncomingMessage` or Express request. The raw body is
 * `req.body` when `express.raw()` / `express.text()` already produced a Buffer or string, else
 * `req.rawBody` when a parser kept it (NestJS `rawBody: true`), else read from the stream.
 *
 * Fails with `CallbackVerificationError`; `BodyAlreadyParsed` when `express.json()` ran first (its
 * message says to mount `express.raw()` on this route, or the handler before body parsers).
 *
 * @example
 * ```ts
 * import { Callback, CallbackHandler } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const verifier = await Effect.runPromise(Callback.make(options)) // once, at startup
 * app.post("/callbacks", express.raw({ type: "application/json" }), async (req, res) => {
 *   const event = await CallbackHandler.verifyNodeRequest(req).pipe(
 *     Effect.provideService(Callback.CallbackVerifier, verifier),
 *     Effect.runPromise
 *   )
 *   await markPaid(event.outerOrder)
 *   res.json({ code: "SUCCESS", msg: null, data: null })
 * })
 * ```
 */
export const verifyNodeRequest = (
  req: NodeRequest
): Effect.Effect<Wire.CallbackEvent, CallbackVerificationError, CallbackVerifier> =>
  verifyBody((max) => readNodeBody(req, max), req.headers)

/**
 * The envelope-like answer to a callback (`{"code", "msg", "data": null}`): its HTTP status and
 * JSON body. `SUCCESS` 200 when processed; `signError` 401 for header, key, signature, timestamp
 * and replay refusals; `paramError` 400 for a body that is not an event or too large;
 * `internalError` 500 for receiver problems (body unavailable, replay store down or full, your
 * handler failed), which the service delivers again later.
 *
 * @example
 * ```ts
 * import { CallbackHandler } from "@pc/client"
 *
 * CallbackHandler.answerOf(undefined) // { status: 200, body: '{"code":"SUCCESS","msg":null,"data":null}' }
 * ```
 */
export const answerOf = (
  outcome: Pick<CallbackVerificationError, "reason"> | "HandlerFailed" | undefined
): { readonly status: 200 | 400 | 401 | 500; readonly body: string } => {
  const answer = (status: 200 | 400 | 401 | 500, code: string, msg: string | null) => ({
    status,
    body: JSON.stringify({ code, msg, data: null })
  })
  if (outcome === undefined) return answer(200, "SUCCESS", null)
  if (outcome === "HandlerFailed") return answer(500, "internalError", "the callback handler failed")
  switch (outcome.reason) {
    case "MissingHeader":
    case "MalformedHeader":
    case "UnknownKeyVersion":
    case "WrongEnvironment":
    case "BadSignature":
    case "StaleTimestamp":
    case "Replayed":
      // The short cause only: the hints of the error message are for the merchant's logs.
      return answer(401, "signError", `signature verification failed: ${outcome.reason}`)
    case "MalformedBody":
    case "BodyTooLarge":
      return answer(400, "paramError", `callback body refused: ${outcome.reason}`)
    default:
      return answer(500, "internalError", `callback receiver failed: ${outcome.reason}`)
  }
}

const toResponse = (answer: { readonly status: number; readonly body: string }): Response =>
  new Response(answer.body, { status: answer.status, headers: { "content-type": "application/json" } })

/**
 * What {@link handleRequest} and {@link handleNodeRequest} do once the callback is verified: act
 * on the event. A failure answers 500, so the service delivers again later (process idempotently
 * by `eventId`).
 *
 * @example
 * ```ts
 * import type { CallbackHandler } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const onEvent: CallbackHandler.EventHandler<never, never> = (event) => Effect.log(event.eventType, event.outerOrder)
 * ```
 */
export type EventHandler<E, R> = (event: Wire.CallbackEvent) => Effect.Effect<void, E, R>

const run = <E, R>(
  verified: Effect.Effect<Wire.CallbackEvent, CallbackVerificationError, CallbackVerifier>,
  onEvent: EventHandler<E, R>
): Effect.Effect<{ readonly status: 200 | 400 | 401 | 500; readonly body: string }, never, CallbackVerifier | R> =>
  verified.pipe(
    Effect.matchEffect({
      onFailure: (error) =>
        Effect.as(
          Effect.logWarning(error.message).pipe(Effect.annotateLogs({ reason: error.reason })),
          answerOf(error)
        ),
      onSuccess: (event) =>
        onEvent(event).pipe(
          Effect.as(answerOf(undefined)),
          Effect.catchAllCause((cause) =>
            Effect.as(Effect.logError("the callback handler failed", Cause.pretty(cause)), answerOf("HandlerFailed"))
          )
        )
    })
  )

/**
 * Handles a callback `Request` end to end: verifies it, runs `onEvent`, and answers with a
 * `Response` (200, 400, 401 or 500 with an envelope-like JSON body, see {@link answerOf}).
 *
 * Never fails: refusals are logged as warnings and answered.
 *
 * @example
 * ```ts
 * import { Callback, CallbackHandler } from "@pc/client"
 * import { Effect } from "effect"
 *
 * // Once, at startup: the verifier and its replay guard live as long as the process.
 * const verifier = await Effect.runPromise(Callback.make({ environment: "production", appKey, platformKeys }))
 * // Next.js route handler, Hono (c.req.raw), a worker's fetch:
 * export const POST = (request: Request) =>
 *   CallbackHandler.handleRequest(request, (event) => Effect.log(event.orderSn)).pipe(
 *     Effect.provideService(Callback.CallbackVerifier, verifier),
 *     Effect.runPromise
 *   )
 * ```
 */
export const handleRequest = <E, R>(
  request: FetchRequest,
  onEvent: EventHandler<E, R>
): Effect.Effect<Response, never, CallbackVerifier | R> => Effect.map(run(verifyRequest(request), onEvent), toResponse)

/**
 * Handles a callback on Node `http` or Express end to end: reads the raw body, verifies it, runs
 * `onEvent`, and writes the answer (see {@link answerOf}) to `res`.
 *
 * Never fails: refusals are logged as warnings and answered.
 *
 * @example
 * ```ts
 * import { Callback, CallbackHandler } from "@pc/client"
 * import { Effect } from "effect"
 * import { createServer } from "node:http"
 *
 * const verifier = await Effect.runPromise(Callback.make({ environment: "production", appKey, platformKeys }))
 * createServer((req, res) =>
 *   CallbackHandler.handleNodeRequest(req, res, (event) => Effect.log(event.orderSn)).pipe(
 *     Effect.provideService(Callback.CallbackVerifier, verifier),
 *     Effect.runPromise
 *   )
 * )
 * ```
 */
export const handleNodeRequest = <E, R>(
  req: NodeRequest,
  res: NodeResponse,
  onEvent: EventHandler<E, R>
): Effect.Effect<void, never, CallbackVerifier | R> =>
  Effect.flatMap(run(verifyNodeRequest(req), onEvent), (answer) =>
    Effect.sync(() => {
      if (res.headersSent === true) return
      res.writeHead(answer.status, { "content-type": "application/json" })
      res.end(answer.body)
    })
  )
