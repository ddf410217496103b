/**
 * Verifying the service's signed callbacks (spec 5.5): from headers in any casing and the raw body
 * to a typed `Wire.CallbackEvent`, with the platform key chosen by environment and
 * `X-R-Key-Version`, the +-5 minute window, and a replay guard. The HTTP adapters (Fetch `Request`,
 * Node `IncomingMessage` / Express) are in `CallbackHandler`.
 *
 * @since 0.1.0
 */
import { Canonical, type Crypto, Environment, Headers, KeyRing, Timestamp } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { decodeUtf8, utf8 } from "./internal/bytes.js"
import type { CallbackVerificationError, CallbackVerificationErrorReason } from "./CallbackVerificationError.js"
import { refusal } from "./internal/refusal.js"
import { keyEntries, keyImportError } from "./internal/keys.js"
import { ConfigurationError } from "./PaymentClientError.js"
import type * as PlatformKeySource from "./PlatformKeySource.js"
import * as ReplayGuard from "./ReplayGuard.js"

export { CallbackVerificationError, type CallbackVerificationErrorReason } from "./CallbackVerificationError.js"

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
      const option = `platformKeys.${environment}`
      const versions = yield* keyEntries(entries, option)
      out[environment] = yield* Effect.tryPromise({
        try: () => KeyRing.importVerifiers(crypto, new Map(versions)),
        catch: (error) => keyImportError(error, option)
      })
    }
    return out
  })

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
  /**
   * The platform public keys held now; must hold the keys of `environment` unless
   * `platformKeySource` is given.
   */
  readonly platformKeys?: PlatformKeyRing | undefined
  /**
   * Where a key version the ring does not hold is looked up (cached, refreshed at most once per
   * interval): a platform key rotation then refuses no callback, whenever the new key starts to sign.
   */
  readonly platformKeySource?: PlatformKeySource.PlatformKeySource | undefined
  /**
   * Default: an in-memory guard ({@link ReplayGuard.memory}), one per {@link make} run or per
   * {@link layer} value; `false` turns replay protection off.
   */
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
 * The callback verifier service tag; build it once with {@link make} or {@link layer}.
 *
 * @example
 * ```ts
 * import { Callback } from "@pc/client"
 *
 * const live = Callback.layer({ environment: "production", appKey, platformKeys })
 * ```
 */
export class CallbackVerifier extends Context.Tag("@pc/client/CallbackVerifier")<CallbackVerifier, Service>() {}

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
 * Makes a callback verifier. Run it once, at startup, and keep the service: each run has its own
 * default in-memory replay guard, so a verifier made per request would remember no delivery.
 *
 * Fails with `ConfigurationError` for an unknown environment, an appKey that is not a UUID, or no
 * platform keys for the environment.
 *
 * @example
 * ```ts
 * import { Callback, CallbackHandler } from "@pc/client"
 * import { Effect } from "effect"
 *
 * // Once, at startup:
 * const verifier = await Effect.runPromise(Callback.make({ environment: "production", appKey, platformKeys }))
 * // Per request:
 * export const POST = (request: Request) =>
 *   CallbackHandler.handleRequest(request, onEvent).pipe(
 *     Effect.provideService(Callback.CallbackVerifier, verifier),
 *     Effect.runPromise
 *   )
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
    if (typeof appKey !== "string" || !Headers.isAppKey(appKey)) {
      return yield* new ConfigurationError({
        message: "invalid option appKey: your own merchant appKey (a UUID); the service signs callbacks over it",
        reason: "InvalidOption",
        option: "appKey"
      })
    }
    const ring = platformKeys?.[environment]
    const source = options.platformKeySource
    if (ring === undefined && source === undefined) {
      return yield* new ConfigurationError({
        message: `no ${environment} platform keys are configured: add platformKeys.${environment} or a platformKeySource`,
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
      details?: { readonly header?: string; readonly keyVersion?: number; readonly localClockAheadMs?: number }
    ) => refusal(environment, reason, message, details)

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
        let verifier = ring?.get(keyVersion)
        if (verifier === undefined && source !== undefined) {
          const found = yield* Effect.either(source.lookup(environment, keyVersion))
          if (found._tag === "Left") {
            return yield* refuse("PlatformKeySourceFailed", found.left.message, {
              header: Headers.CallbackHeaders.keyVersion,
              keyVersion
            })
          }
          verifier = found.right
        }
        if (verifier === undefined) {
          return yield* refuse(
            "UnknownKeyVersion",
            `X-R-Key-Version ${keyVersion} names no ${environment} platform key known here ` +
              `(known: ${ring?.versions.join(", ") || "none"}${source === undefined ? "" : ", nor in the platform key source"}); ` +
              `the service publishes a new key version before it signs with it: add it to platformKeys.${environment} ` +
              `(or use a platformKeySource) and keep the old one`,
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
            const candidate = platformKeys?.[other]?.get(keyVersion)
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
          const localClockAheadMs = now - timestamp
          const seconds = Math.round(Math.abs(localClockAheadMs) / 1000)
          return yield* refuse(
            "StaleTimestamp",
            `X-R-Ts is ${seconds} s ${localClockAheadMs > 0 ? "behind" : "ahead of"} this machine's clock, outside ` +
              `the ${Timestamp.WINDOW_MS / 60_000} minute window: a replayed or long-delayed delivery, or this ` +
              `machine's clock is wrong (synchronise it with NTP)`,
            { header: Headers.CallbackHeaders.timestamp, keyVersion, localClockAheadMs }
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
        // The contract fixes three event types; another one is refused as MalformedBody (400), which
        // the service keeps redelivering, rather than handed on as an event the types do not describe.
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
          const { eventId } = event.right
          // Recorded only once authentic and fresh: forged requests must not fill the store. The
          // signature covers appKey, X-R-Ts and the body (so the eventId): the key needs no more.
          const seen = yield* callGuard(guard, {
            key: `${appKey}:${environment}:${timestamp}:${eventId}`,
            appKey,
            environment,
            keyVersion,
            timestamp,
            eventId,
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
              `this delivery (X-R-Ts ${timestamp}, eventId ${JSON.stringify(eventId)}) was already accepted: a replay`,
              { keyVersion }
            )
          }
        }
        return event.right
      })

    return CallbackVerifier.of({ environment, appKey, maxBodyBytes, verify })
  })

/**
 * Provides the {@link CallbackVerifier} from options. Make the layer once, at startup: its default
 * in-memory replay guard is made with the layer value and shared by every build of it, so even
 * `Effect.provide(live)` per request remembers deliveries (a `ManagedRuntime` or one
 * `Effect.provide` around the whole server builds the verifier only once, too).
 *
 * Fails with `ConfigurationError` like {@link make}.
 *
 * @example
 * ```ts
 * import { Callback, CallbackHandler } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const live = Callback.layer({ environment: "production", appKey, platformKeys }) // once, at startup
 * export const POST = (request: Request) =>
 *   Effect.runPromise(CallbackHandler.handleRequest(request, onEvent).pipe(Effect.provide(live)))
 * ```
 */
export const layer = (options: VerifierOptions): Layer.Layer<CallbackVerifier, ConfigurationError> => {
  // Made here, outside Layer.effect: a layer provided per request is built afresh each time, and a
  // guard made inside the build would start empty for every request and let every replay through.
  const shared: VerifierOptions =
    options.replayGuard === undefined ? { ...options, replayGuard: ReplayGuard.memory() } : options
  return Layer.effect(CallbackVerifier, make(shared))
}

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
