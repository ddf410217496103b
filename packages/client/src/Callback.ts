/**
 * Verifying the service's signed callbacks (spec 5.5): from headers in any casing and the raw body
 * to a typed `Wire.CallbackEvent`, with the platform key chosen by environment and
 * `X-R-Key-Version`, the +-5 minute window, and an optional replay guard. Thin adapters for Fetch
 * `Request` handlers (Hono, Next.js, workers, Deno, Bun) and Node `IncomingMessage` / Express.
 *
 * @since 0.1.0
 */
import { Base64, Canonical, type Crypto, Environment, Headers, KeyRing, Timestamp, Wire } from "@pc/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { decodeUtf8, utf8 } from "./internal/bytes.js"
import { readNodeBody } from "./internal/nodeBody.js"
import { ConfigurationError } from "./PaymentClientError.js"
import * as ReplayGuard from "./ReplayGuard.js"

/**
 * The service's platform public keys: for each environment, a ring of verifiers by key version.
 * Hold several versions at once so that a platform key rotation needs no downtime; a callback is
 * only ever checked against the keys of the verifier's own environment.
 *
 * @example
 * ```ts
 * import type { Callback } from "@pc/client"
 * import { KeyRing } from "@pc/core"
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const platformKeys: Callback.PlatformKeyRing = {
 *   production: await KeyRing.importVerifiers(NodeCrypto, { 1: productionV1Pem, 2: productionV2Pem })
 * }
 * ```
 */
export type PlatformKeyRing = {
  readonly [E in Environment.Environment]?: KeyRing.KeyRing<Crypto.Verifier> | undefined
}

/**
 * Platform public keys as PEM (SPKI or PKCS#1) or bare Base64, by environment and version.
 *
 * @example
 * ```ts
 * import type { Callback } from "@pc/client"
 *
 * const pems: Callback.PlatformKeyPems = { sandbox: { 1: sandboxV1Pem }, production: { 1: productionV1Pem } }
 * ```
 */
export type PlatformKeyPems = {
  readonly [E in Environment.Environment]?: KeyRing.KeyEntries<string> | undefined
}

/**
 * Imports platform public keys through a crypto provider into a {@link PlatformKeyRing}, each
 * parsed once and checked (RSA, 2048 bits or more).
 *
 * Fails with `ConfigurationError`: `BadKey`, `WeakKey`, or `InvalidOption` for an unknown
 * environment, a bad version number or an empty ring.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const platformKeys = Callback.importPlatformKeys(NodeCrypto, { production: { 1: productionV1Pem } })
 * ```
 */
export const importPlatformKeys = (
  crypto: Crypto.CryptoProvider,
  pems: PlatformKeyPems
): Effect.Effect<PlatformKeyRing, ConfigurationError> =>
  Effect.gen(function* () {
    const out: { [E in Environment.Environment]?: KeyRing.KeyRing<Crypto.Verifier> } = {}
    for (const [environment, entries] of Object.entries(pems)) {
      if (entries === undefined) continue
      if (!Environment.isEnvironment(environment)) {
        return yield* new ConfigurationError({
          message: `platformKeys: ${JSON.stringify(environment)} is not an environment (sandbox, production, gray)`,
          reason: "InvalidOption",
          option: "platformKeys"
        })
      }
      out[environment] = yield* Effect.tryPromise({
        try: () => KeyRing.importVerifiers(crypto, entries),
        catch: (error) => {
          const e = error as { readonly _tag?: unknown; readonly reason?: unknown; readonly message?: unknown }
          const message = `platformKeys.${environment}: ${typeof e?.message === "string" ? e.message : "the key could not be imported"}`
          return new ConfigurationError({
            message,
            reason: e?._tag === "KeyImportError" ? (e.reason === "WeakKey" ? "WeakKey" : "BadKey") : "InvalidOption",
            option: `platformKeys.${environment}`
          })
        }
      })
    }
    return out
  })

/**
 * Why a callback was refused. Each has its own reason so that logs and alerts can tell a forged
 * request from a misconfiguration:
 * - `MissingHeader`, `MalformedHeader`: `X-R-Ts`, `X-R-Key-Version` or `X-R-Signature` absent,
 *   sent twice, or not of their form.
 * - `UnknownKeyVersion`: no platform key of this environment has that version (a rotation you have
 *   not added yet, or a forged header).
 * - `WrongEnvironment`: signed with another environment's platform key (a sandbox callback at a
 *   production endpoint). Only detectable when the ring holds that environment's keys too.
 * - `BadSignature`: the signature does not verify: usually a body that was parsed and re-serialised.
 * - `StaleTimestamp`: `X-R-Ts` outside +-5 minutes of this machine's clock.
 * - `Replayed`: the replay guard has seen this delivery before.
 * - `MalformedBody`: signed correctly, but not a callback event.
 * - `BodyAlreadyParsed`, `BodyUnreadable`, `BodyTooLarge`: the raw body is not available.
 * - `ReplayGuardFailed`: the replay guard's store failed; the callback is refused (fail closed).
 *
 * @example
 * ```ts
 * import type { Callback } from "@pc/client"
 *
 * const reason: Callback.CallbackVerificationErrorReason = "BadSignature"
 * ```
 */
export type CallbackVerificationErrorReason =
  | "MissingHeader"
  | "MalformedHeader"
  | "UnknownKeyVersion"
  | "WrongEnvironment"
  | "BadSignature"
  | "StaleTimestamp"
  | "Replayed"
  | "MalformedBody"
  | "BodyAlreadyParsed"
  | "BodyUnreadable"
  | "BodyTooLarge"
  | "ReplayGuardFailed"

/**
 * A refused callback: one class with a `reason` literal (see {@link CallbackVerificationErrorReason}),
 * whose message names the usual mistake behind it.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 * import { Effect } from "effect"
 *
 * Callback.verifyRequest(request).pipe(
 *   Effect.catchTag("CallbackVerificationError", (e) => Effect.logWarning(e.reason, e.message))
 * )
 * ```
 */
export class CallbackVerificationError extends Data.TaggedError("CallbackVerificationError")<{
  readonly message: string
  readonly reason: CallbackVerificationErrorReason
  /** The environment the verifier checks. */
  readonly environment: Environment.Environment
  /** The header at fault, for header reasons. */
  readonly header: string | undefined
  /** `X-R-Key-Version`, once read. */
  readonly keyVersion: number | undefined
  /** `X-R-Ts - local now` in milliseconds, for `StaleTimestamp`. */
  readonly skewMs: number | undefined
}> {}

/**
 * A callback as received: its headers (a Fetch `Headers` or a record in any casing) and its raw
 * body (the exact text or bytes; never a re-serialised object).
 *
 * @example
 * ```ts
 * import type { Callback } from "@pc/client"
 *
 * const input: Callback.CallbackInput = { headers: request.headers, body: new Uint8Array(await request.arrayBuffer()) }
 * ```
 */
export interface CallbackInput {
  readonly headers: Headers.HeaderSource
  readonly body: string | Uint8Array
}

/**
 * The options of a callback verifier.
 *
 * @example
 * ```ts
 * import type { Callback } from "@pc/client"
 *
 * const options: Callback.VerifierOptions = {
 *   environment: "production",
 *   appKey: "7e57c0de-0000-4000-8000-000000000001",
 *   platformKeys
 * }
 * ```
 */
export interface VerifierOptions {
  /** The environment whose platform keys verify; callbacks signed with another environment's key are refused. */
  readonly environment: Environment.Environment
  /** Your own merchant appKey: it is the first part of the string the service signs. */
  readonly appKey: string
  /** The platform public keys; must hold the keys of `environment`. */
  readonly platformKeys: PlatformKeyRing
  /** Default: an in-memory guard ({@link ReplayGuard.memory}); `false` turns replay protection off. */
  readonly replayGuard?: ReplayGuard.ReplayGuard | false | undefined
  /** The largest body the adapters read; default 1 MiB. */
  readonly maxBodyBytes?: number | undefined
}

/**
 * A configured callback verifier.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const event = Effect.flatMap(Callback.CallbackVerifier, (verifier) => verifier.verify({ headers, body }))
 * ```
 */
export interface Service {
  readonly environment: Environment.Environment
  readonly appKey: string
  readonly maxBodyBytes: number
  /**
   * Verifies one callback and decodes its event.
   *
   * Fails with `CallbackVerificationError`.
   */
  readonly verify: (input: CallbackInput) => Effect.Effect<Wire.CallbackEvent, CallbackVerificationError>
}

/**
 * The callback verifier service tag; build it with {@link make} or {@link layer}.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 *
 * const live = Callback.layer({ environment: "production", appKey, platformKeys })
 * ```
 */
export class CallbackVerifier extends Context.Tag("@pc/client/CallbackVerifier")<CallbackVerifier, Service>() {}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

const RAW_BODY_HINT =
  "did you pass the raw body? A framework that parsed and re-serialised the JSON changes the bytes " +
  "(spaces, key order, escapes): verify the body exactly as received (express.raw(), await request.arrayBuffer())"

const decodeEvent = Schema.decodeUnknownEither(Wire.CallbackEvent)

const callGuard = (guard: ReplayGuard.ReplayGuard, entry: ReplayGuard.ReplayEntry): Effect.Effect<boolean, unknown> =>
  Effect.suspend(() => {
    const answer = guard.seenBefore(entry)
    if (Effect.isEffect(answer)) return answer as Effect.Effect<boolean, unknown>
    if (typeof answer === "boolean") return Effect.succeed(answer)
    return Effect.tryPromise({ try: () => Promise.resolve(answer), catch: (error) => error })
  }).pipe(Effect.catchAllDefect((defect) => Effect.fail(defect)))

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Makes a callback verifier.
 *
 * Fails with `ConfigurationError` for an unknown environment, an appKey that is not a UUID, or no
 * platform keys for the environment.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const verifier = yield* Callback.make({ environment: "production", appKey, platformKeys })
 *   return yield* verifier.verify({ headers: request.headers, body: rawBody })
 * })
 * ```
 */
export const make = (options: VerifierOptions): Effect.Effect<Service, ConfigurationError> =>
  Effect.gen(function* () {
    const { environment, appKey, platformKeys } = options
    if (!Environment.isEnvironment(environment)) {
      return yield* new ConfigurationError({
        message: 'invalid option environment: expected "sandbox", "production" or "gray"',
        reason: "InvalidOption",
        option: "environment"
      })
    }
    if (typeof appKey !== "string" || !UUID.test(appKey)) {
      return yield* new ConfigurationError({
        message: "invalid option appKey: your own merchant appKey (a UUID); the service signs callbacks over it",
        reason: "InvalidOption",
        option: "appKey"
      })
    }
    const ring = platformKeys?.[environment]
    if (ring === undefined) {
      return yield* new ConfigurationError({
        message: `no ${environment} platform keys are configured: add platformKeys.${environment}`,
        reason: "UnknownKeyVersion",
        option: "platformKeys"
      })
    }
    const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024
    if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
      return yield* new ConfigurationError({
        message: "invalid option maxBodyBytes: expected a whole number >= 1",
        reason: "InvalidOption",
        option: "maxBodyBytes"
      })
    }
    const guard = options.replayGuard === false ? undefined : (options.replayGuard ?? ReplayGuard.memory())
    const others = Environment.environments.filter((e) => e !== environment)

    const refuse = (
      reason: CallbackVerificationErrorReason,
      message: string,
      details: { readonly header?: string; readonly keyVersion?: number; readonly skewMs?: number } = {}
    ) =>
      new CallbackVerificationError({
        message: `callback refused (${environment}): ${message}`,
        reason,
        environment,
        header: details.header,
        keyVersion: details.keyVersion,
        skewMs: details.skewMs
      })

    const verify = (input: CallbackInput): Effect.Effect<Wire.CallbackEvent, CallbackVerificationError> =>
      Effect.gen(function* () {
        const parsed = Headers.parseCallback(input.headers)
        if (!parsed.ok) {
          const { header, reason } = parsed.error
          return yield* refuse(
            reason === "Missing" ? "MissingHeader" : "MalformedHeader",
            reason === "Missing"
              ? `${parsed.error.message}; callbacks carry X-R-Ts, X-R-Key-Version and X-R-Signature ` +
                  `(a proxy that strips them, or not a callback from the service)`
              : parsed.error.message,
            { header }
          )
        }
        const { timestamp, keyVersion, signature } = parsed.headers
        const verifier = ring.get(keyVersion)
        if (verifier === undefined) {
          return yield* refuse(
            "UnknownKeyVersion",
            `X-R-Key-Version ${keyVersion} names no ${environment} platform key known here ` +
              `(known: ${ring.versions.join(", ")}); the service publishes a new key version before it signs ` +
              `with it: add it to platformKeys.${environment} and keep the old one`,
            { header: Headers.CallbackHeaders.keyVersion, keyVersion }
          )
        }
        const body = typeof input.body === "string" ? utf8(input.body) : input.body
        // The signed bytes are appKey.timestamp. followed by the body exactly as received (spec 5.5):
        // bytes, not a decoded and re-encoded string, so nothing can change what is verified.
        const message = Canonical.callbackBytesToSign(appKey, timestamp, body)
        const valid = (v: Crypto.Verifier) =>
          Effect.tryPromise({ try: () => v.verify(message, signature), catch: () => false }).pipe(
            Effect.orElseSucceed(() => false)
          )
        if (!(yield* valid(verifier))) {
          // Only to name the mistake: the callback is refused either way, and never accepted with
          // another environment's key (spec 5.5: the sandbox key must not be used in production).
          for (const other of others) {
            const candidate = platformKeys[other]?.get(keyVersion)
            if (candidate !== undefined && (yield* valid(candidate))) {
              return yield* refuse(
                "WrongEnvironment",
                `it is signed with the ${other} platform key (version ${keyVersion}), but this endpoint ` +
                  `verifies ${environment} callbacks: the ${other} key is never accepted in ${environment}; ` +
                  `point the ${other} notifyUrl at a ${other} endpoint, or fix this verifier's environment`,
                { keyVersion }
              )
            }
          }
          return yield* refuse(
            "BadSignature",
            `the signature does not verify with the ${environment} platform key version ${keyVersion}: ` +
              `${RAW_BODY_HINT}. Also check that the appKey is your own merchant appKey and that the ` +
              `callback comes from the ${environment} service`,
            { header: Headers.CallbackHeaders.signature, keyVersion }
          )
        }
        const now = yield* Clock.currentTimeMillis
        const window = Timestamp.checkWindow(timestamp, now)
        if (!window.ok) {
          const seconds = Math.round(Math.abs(window.skewMs) / 1000)
          return yield* refuse(
            "StaleTimestamp",
            `X-R-Ts is ${seconds} s ${window.skewMs < 0 ? "behind" : "ahead of"} this machine's clock, outside ` +
              `the ${Timestamp.WINDOW_MS / 60_000} minute window: a replayed or long-delayed delivery, or this ` +
              `machine's clock is wrong (synchronise it with NTP)`,
            { header: Headers.CallbackHeaders.timestamp, keyVersion, skewMs: window.skewMs }
          )
        }
        const text = typeof input.body === "string" ? input.body : decodeUtf8(body)
        if (text === undefined) {
          return yield* refuse("MalformedBody", "the signature is valid but the body is not UTF-8", { keyVersion })
        }
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          return yield* refuse("MalformedBody", "the signature is valid but the body is not JSON", { keyVersion })
        }
        const event = decodeEvent(json)
        if (Either.isLeft(event)) {
          const issue = ParseResult.ArrayFormatter.formatErrorSync(event.left)[0]
          return yield* refuse(
            "MalformedBody",
            `the signature is valid but the body is not a callback event` +
              (issue === undefined ? "" : ` (${issue.path.join(".") || "body"}: ${issue.message})`),
            { keyVersion }
          )
        }
        if (guard !== undefined) {
          const signatureText = Base64.encode(signature)
          // Recorded only once authentic and fresh: forged requests must not fill the store.
          const seen = yield* callGuard(guard, {
            key: `${environment}:${keyVersion}:${timestamp}:${signatureText}`,
            environment,
            keyVersion,
            timestamp,
            signature: signatureText,
            eventId: event.right.eventId,
            receivedAt: now,
            expiresAt: timestamp + Timestamp.WINDOW_MS
          }).pipe(
            Effect.mapError((error) =>
              refuse(
                "ReplayGuardFailed",
                `the replay guard failed (${describe(error)}); refused so that no replay slips through ` +
                  `(the service delivers again later)`,
                { keyVersion }
              )
            )
          )
          if (seen) {
            return yield* refuse(
              "Replayed",
              `this delivery (X-R-Ts ${timestamp}, same signature) was already accepted: a replay`,
              { keyVersion }
            )
          }
        }
        return event.right
      })

    return CallbackVerifier.of({ environment, appKey, maxBodyBytes, verify })
  })

/**
 * Provides the {@link CallbackVerifier} from options.
 *
 * Fails with `ConfigurationError` like {@link make}.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 *
 * const live = Callback.layer({ environment: "production", appKey, platformKeys })
 * ```
 */
export const layer = (options: VerifierOptions): Layer.Layer<CallbackVerifier, ConfigurationError> =>
  Layer.effect(CallbackVerifier, make(options))

/**
 * Verifies one callback with the {@link CallbackVerifier} in context.
 *
 * Fails with `CallbackVerificationError`.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 *
 * const event = Callback.verify({ headers: { "x-r-ts": ts, "x-r-key-version": "1", "x-r-signature": sig }, body: rawBody })
 * ```
 */
export const verify = (
  input: CallbackInput
): Effect.Effect<Wire.CallbackEvent, CallbackVerificationError, CallbackVerifier> =>
  Effect.flatMap(CallbackVerifier, (verifier) => verifier.verify(input))

/**
 * The parts of a Fetch `Request` the adapter reads; any `Request` fits.
 *
 * @example
 * ```ts
 * import type { Callback } from "@pc/client"
 *
 * const request: Callback.FetchRequest = new Request("http://localhost/callbacks", { method: "POST", body: "{}" })
 * ```
 */
export interface FetchRequest {
  readonly headers: { get(name: string): string | null }
  readonly bodyUsed?: boolean
  arrayBuffer(): Promise<ArrayBuffer>
}

/**
 * Verifies a callback arriving as a Fetch `Request` (Hono's `c.req.raw`, Next.js route handlers,
 * workers, Deno, Bun), reading the raw body with `request.arrayBuffer()`.
 *
 * Fails with `CallbackVerificationError`, including `BodyAlreadyParsed` when the body was read
 * before (`request.json()` ran first) and `BodyTooLarge`.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const handler = (request: Request) => Callback.verifyRequest(request).pipe(Effect.provide(verifierLayer))
 * ```
 */
export const verifyRequest = (
  request: FetchRequest
): Effect.Effect<Wire.CallbackEvent, CallbackVerificationError, CallbackVerifier> =>
  Effect.gen(function* () {
    const verifier = yield* CallbackVerifier
    const refuse = (reason: CallbackVerificationErrorReason, message: string) =>
      new CallbackVerificationError({
        message: `callback refused (${verifier.environment}): ${message}`,
        reason,
        environment: verifier.environment,
        header: undefined,
        keyVersion: undefined,
        skewMs: undefined
      })
    if (request.bodyUsed === true) {
      return yield* refuse(
        "BodyAlreadyParsed",
        "the Request body was already read (request.json() or request.text() ran before this handler), so " +
          "the raw bytes the signature covers are gone: verify first, or pass request.clone()"
      )
    }
    const declared = Number(request.headers.get("content-length") ?? "0")
    if (declared > verifier.maxBodyBytes) {
      return yield* refuse("BodyTooLarge", `the body is over ${verifier.maxBodyBytes} bytes`)
    }
    const buffer = yield* Effect.tryPromise({
      try: () => request.arrayBuffer(),
      catch: (error) => refuse("BodyUnreadable", `the request body could not be read: ${describe(error)}`)
    })
    if (buffer.byteLength > verifier.maxBodyBytes) {
      return yield* refuse("BodyTooLarge", `the body is over ${verifier.maxBodyBytes} bytes`)
    }
    return yield* verifier.verify({ headers: request.headers, body: new Uint8Array(buffer) })
  })

/**
 * The parts of a Node `IncomingMessage` (or an Express `Request`) the Node adapter reads; any
 * `http.IncomingMessage` fits, so `node:http` is never imported.
 *
 * @example
 * ```ts
 * import type { Callback } from "@pc/client"
 * import type { IncomingMessage } from "node:http"
 *
 * const asNodeRequest = (req: IncomingMessage): Callback.NodeRequest => req
 * ```
 */
export interface NodeRequest {
  readonly headers: { readonly [name: string]: string | ReadonlyArray<string> | undefined }
  /** Set by body parsers: a Buffer or string (`express.raw()`, `express.text()`) is used; an object (`express.json()`) is refused. */
  readonly body?: unknown
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
 * import type { Callback } from "@pc/client"
 * import type { ServerResponse } from "node:http"
 *
 * const asNodeResponse = (res: ServerResponse): Callback.NodeResponse => res
 * ```
 */
export interface NodeResponse {
  writeHead(statusCode: number, headers: { readonly [name: string]: string }): unknown
  end(body: string): unknown
  readonly headersSent?: boolean
}

/**
 * Verifies a callback arriving as a Node `IncomingMessage` or Express `Request`. The raw body is
 * read from the stream, or taken from `req.body` when `express.raw()` / `express.text()` already
 * produced a Buffer or string.
 *
 * Fails with `CallbackVerificationError`; `BodyAlreadyParsed` when `express.json()` ran first (its
 * message says to mount `express.raw()` on this route, or the handler before body parsers).
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 * import { Effect } from "effect"
 * import { createServer } from "node:http"
 *
 * createServer((req, res) => Effect.runPromise(Callback.handleNodeRequest(req, res, onEvent).pipe(Effect.provide(live))))
 * ```
 */
export const verifyNodeRequest = (
  req: NodeRequest
): Effect.Effect<Wire.CallbackEvent, CallbackVerificationError, CallbackVerifier> =>
  Effect.gen(function* () {
    const verifier = yield* CallbackVerifier
    const read = yield* Effect.promise(() => readNodeBody(req, verifier.maxBodyBytes))
    if (!read.ok) {
      return yield* new CallbackVerificationError({
        message: `callback refused (${verifier.environment}): ${read.message}`,
        reason: read.reason,
        environment: verifier.environment,
        header: undefined,
        keyVersion: undefined,
        skewMs: undefined
      })
    }
    return yield* verifier.verify({ headers: req.headers, body: read.body })
  })

/**
 * The envelope-like answer to a callback (`{"code", "msg", "data": null}`): its HTTP status and
 * JSON body. `SUCCESS` 200 when processed; `signError` 401 for header, key, signature, timestamp
 * and replay refusals; `paramError` 400 for a body that is not an event or too large;
 * `internalError` 500 for receiver problems (body unavailable, replay store down, your handler
 * failed), which the service delivers again later.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 *
 * Callback.answerOf(undefined) // { status: 200, body: '{"code":"SUCCESS","msg":null,"data":null}' }
 * ```
 */
export const answerOf = (
  outcome: CallbackVerificationError | "HandlerFailed" | undefined
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
 * import type { Callback } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const onEvent: Callback.EventHandler<never, never> = (event) => Effect.log(event.eventType, event.outerOrder)
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
 * import { Callback } from "@pc/client"
 * import { Effect } from "effect"
 *
 * // Next.js route handler, Hono (c.req.raw), a worker's fetch
 * export const POST = (request: Request) =>
 *   Effect.runPromise(Callback.handleRequest(request, (event) => Effect.log(event.orderSn)).pipe(Effect.provide(live)))
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
 * import { Callback } from "@pc/client"
 * import { Effect } from "effect"
 * import { createServer } from "node:http"
 *
 * createServer((req, res) =>
 *   Effect.runPromise(Callback.handleNodeRequest(req, res, (event) => Effect.log(event.orderSn)).pipe(Effect.provide(live)))
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
