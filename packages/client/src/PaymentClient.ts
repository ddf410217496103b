/**
 * The Merchant Payment Connect client as an Effect service: it signs every request with the
 * merchant's current key, creates orders, retries what is safe to retry, and fails with the typed
 * errors of `PaymentClientError`. It runs on any `HttpClient` layer (fetch, Node, Bun, ...).
 *
 * @since 0.1.0
 */
import type { Crypto, Environment, KeyRing } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { flow, identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { invalidOption, positiveDuration, settingsOf } from "./internal/clientOptions.js"
import { encodeCreateOrder } from "./internal/createOrderBody.js"
import { fromHttpClientError, withRedactedHeaders } from "./internal/httpErrors.js"
import { checkRing, importRing } from "./internal/keyRingImport.js"
import { keyEntries } from "./internal/keys.js"
import { type AttemptFailure, classifyCreateOrder } from "./internal/response.js"
import { withRetries } from "./internal/retryLoop.js"
import { requestSigner } from "./internal/signing.js"
import { timeoutOption } from "./internal/timeout.js"
import { type ConfigurationError, type PaymentClientError, Timeout } from "./PaymentClientError.js"

/**
 * How failed attempts are retried. Transport errors, timeouts, `internalError`, `rateLimited`
 * and non-envelope 5xx answers are retried with exponential backoff and jitter, waiting at least
 * the server's `Retry-After`, for at most `maxAttempts` attempts and never past `deadline` (counted
 * from the first attempt). `signError`, `paramError` and `duplicateOrder` are never retried.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 *
 * const patient: PaymentClient.RetryPolicy = { ...PaymentClient.defaultRetryPolicy, maxAttempts: 6, deadline: "2 minutes" }
 * ```
 */
export interface RetryPolicy {
  /** Attempts in all, the first included; 1 turns retries off. */
  readonly maxAttempts: number
  /** The wait before the first retry; it doubles for each further retry. */
  readonly baseDelay: Duration.DurationInput
  /** The longest wait between two attempts (a longer `Retry-After` still wins, within the deadline). */
  readonly maxDelay: Duration.DurationInput
  /** The whole call, all attempts and waits, ends by then with the last error or a `Timeout`. */
  readonly deadline: Duration.DurationInput
  /** Spreads each wait over its upper half at random, so that clients failing together do not return together. */
  readonly jitter: boolean
}

/**
 * Overrides of the {@link RetryPolicy}: any subset of its fields; a field left out or `undefined`
 * keeps the default.
 *
 * @example
 * ```ts
 * import type { PaymentClient } from "@pc/client"
 *
 * const retry: PaymentClient.RetryOptions = { maxAttempts: Number(process.env.PC_MAX_ATTEMPTS) || undefined }
 * ```
 */
export type RetryOptions = { readonly [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined }

/**
 * The default retry policy: 4 attempts, 250 ms doubling up to 8 s, jittered, within 10 s: a
 * checkout request has a shopper waiting on it, so a longer `Retry-After` fails the call instead
 * of holding the page. Give a longer `deadline` (or a per-call `timeout`) to background jobs.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 *
 * PaymentClient.defaultRetryPolicy.maxAttempts // 4
 * ```
 */
export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 4,
  baseDelay: "250 millis",
  maxDelay: "8 seconds",
  deadline: "10 seconds",
  jitter: true
}

/**
 * The default time one attempt may take, from sending to the last byte of the answer: 10 s.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 *
 * PaymentClient.defaultTimeout // "10 seconds"
 * ```
 */
export const defaultTimeout: Duration.DurationInput = "10 seconds"

/**
 * What `createOrder` takes. `amount` is a decimal string (`"10.00"`) or a number (`10.5`); it is
 * sent as the canonical string with exactly the currency's decimals (`"10.50"`).
 *
 * @example
 * ```ts
 * import type { PaymentClient } from "@pc/client"
 *
 * const input: PaymentClient.CreateOrderInput = { orderId: "M-1001", amount: 10.5, currency: "USD" }
 * ```
 */
export interface CreateOrderInput {
  /** Your own order id, 1 to 64 characters; it makes the call idempotent on the service. */
  readonly orderId: string
  readonly amount: string | number
  /** An active ISO 4217 code, upper case: `USD`, `EUR`, `JPY`, ... */
  readonly currency: string
}

/**
 * The client's operations and settings.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const client = yield* PaymentClient.PaymentClient
 *   return yield* client.createOrder({ orderId: "M-1001", amount: "10.00", currency: "USD" })
 * })
 * ```
 */
export interface Service {
  readonly environment: Environment.Environment
  readonly baseUrl: string
  readonly appKey: string
  /** The merchant keys; `keyRing.current` signs. */
  readonly keyRing: KeyRing.KeyRing<Crypto.Signer>
  /**
   * The underlying HttpClient: base URL prepended, every request signed afresh on each execution,
   * `transformClient` applied. Use it for endpoints this client does not wrap.
   */
  readonly client: HttpClient.HttpClient
  /**
   * Creates a payment order and returns its checkout URL. Retried as the policy allows: safe,
   * because the service treats the same appKey + orderId + amount + currency as the same order.
   *
   * Fails with `InvalidRequest` (locally, before any network call, or from the service),
   * `SignatureRejected`, `DuplicateOrder`, `RateLimited`, `ServerError`, `TransportError`,
   * `Timeout`, `UnexpectedResponse`, or `ConfigurationError` when the signer itself fails.
   */
  readonly createOrder: (
    input: CreateOrderInput,
    options?: CallOptions
  ) => Effect.Effect<Wire.CreateOrderResult, PaymentClientError>
}

/**
 * Per-call settings of `createOrder`. `timeout` bounds the whole call: every attempt, every
 * backoff and every `Retry-After` wait; when it runs out the call fails with the last error, or a
 * `Timeout` of scope `"deadline"`. It replaces the policy's `deadline` (default 10 s, short enough
 * for a shopper waiting on a checkout button) for this call. `signal` stops the call when it
 * aborts: the Effect is interrupted, and the Promise client rejects with `signal.reason`.
 *
 * @example
 * ```ts
 * import type { PaymentClient } from "@pc/client"
 *
 * const call: PaymentClient.CallOptions = { timeout: "4 seconds", signal: AbortSignal.timeout(5_000) }
 * ```
 */
export interface CallOptions {
  /** The whole call's deadline (a number of milliseconds or a duration such as `"4 seconds"`). */
  readonly timeout?: Duration.DurationInput | undefined
  /** Aborting it stops the call, even mid-wait. */
  readonly signal?: AbortSignal | undefined
}

/**
 * The payment client service tag; build it with {@link make}, {@link layer} or {@link layerConfig}.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const appKey = Effect.map(PaymentClient.PaymentClient, (client) => client.appKey)
 * ```
 */
export class PaymentClient extends Context.Tag("@pc/client/PaymentClient")<PaymentClient, Service>() {}

/**
 * The options every client takes besides its keys.
 *
 * @example
 * ```ts
 * import type { PaymentClient } from "@pc/client"
 *
 * const common: PaymentClient.CommonOptions = {
 *   environment: "sandbox",
 *   baseUrl: "http://127.0.0.1:4010",
 *   appKey: "7e57c0de-0000-4000-8000-000000000001",
 *   timeout: "5 seconds"
 * }
 * ```
 */
export interface CommonOptions {
  /** Which service this is. Requests are signed in every environment: sandbox ignores the signature but reports it in `X-R-Signature-Check`. */
  readonly environment: Environment.Environment
  /**
   * Scheme, host and port of the service, e.g. `https://api.example.com` or `http://127.0.0.1:4010`
   * for the mock; nothing else. A path (`https://gw.example.com/pay`) is refused: the signature
   * covers the API path as sent (`/openapi/v2/...`), so a gateway prefix could not be signed.
   * User info (`https://user:pass@host`) is refused too; add credentials in `transformClient`.
   */
  readonly baseUrl: string
  /** The merchant appKey (a UUID) issued for this environment. */
  readonly appKey: string
  /** The time one attempt may take; default {@link defaultTimeout}. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Overrides of {@link defaultRetryPolicy}; fields left `undefined` keep the default. */
  readonly retry?: RetryOptions | undefined
  /** Applied last to the signed HttpClient: add tracing, proxies, headers, or your own retries (they re-sign too). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * The merchant keys: signers already imported into a ring, or PEM private keys (as `Redacted`) with
 * the `CryptoProvider` that imports them (`NodeCrypto` from `@pc/crypto-node`, `WebCrypto` from
 * `@pc/crypto-web`).
 *
 * @example
 * ```ts
 * import type { PaymentClient } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 * import { Redacted } from "effect"
 *
 * const keys: PaymentClient.KeyOptions = { crypto: NodeCrypto, privateKeys: { 1: Redacted.make(pem) } }
 * ```
 */
export type KeyOptions =
  | {
      /** Signers by version; `current` signs, older versions are kept for rotation. */
      readonly keyRing: KeyRing.KeyRing<Crypto.Signer>
      readonly crypto?: undefined
      readonly privateKeys?: undefined
      readonly currentKeyVersion?: undefined
    }
  | {
      readonly crypto: Crypto.CryptoProvider
      /** PEM private keys (PKCS#8 or PKCS#1) by version. */
      readonly privateKeys: KeyRing.KeyEntries<Redacted.Redacted<string>>
      /** The version that signs; default the highest. */
      readonly currentKeyVersion?: number | undefined
      readonly keyRing?: undefined
    }

/**
 * The options of {@link make} and {@link layer}.
 *
 * @example
 * ```ts
 * import type { PaymentClient } from "@pc/client"
 *
 * const options: PaymentClient.Options = { environment: "sandbox", baseUrl: "http://127.0.0.1:4010", appKey, keyRing }
 * ```
 */
export type Options = CommonOptions & KeyOptions

/**
 * Imports PEM private keys (as `Redacted`) through a crypto provider into a signing key ring; each
 * key is parsed once and checked (RSA, 2048 bits or more).
 *
 * Fails with `ConfigurationError`: `BadKey` (not an RSA private key in PEM), `WeakKey` (under 2048
 * bits), `UnknownKeyVersion` (`current` is not in the ring), `InvalidOption` (a bad version number).
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 * import { Redacted } from "effect"
 *
 * const ring = PaymentClient.importKeyRing(NodeCrypto, { 1: Redacted.make(pemV1), 2: Redacted.make(pemV2) }, 2)
 * ```
 */
export const importKeyRing: (
  crypto: Crypto.CryptoProvider,
  privateKeys: KeyRing.KeyEntries<Redacted.Redacted<string>>,
  current?: number
) => Effect.Effect<KeyRing.KeyRing<Crypto.Signer>, ConfigurationError> = importRing

/**
 * Makes the client service from options, on the `HttpClient` in context. Keys given as PEM are
 * imported here, once.
 *
 * Fails with `ConfigurationError` for a bad option (environment, base URL, appKey, timeout, retry
 * policy), a bad or weak key, or a current key version the ring does not hold.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { PaymentClient } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 * import { Effect, Redacted } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const client = yield* PaymentClient.make({
 *     environment: "sandbox",
 *     baseUrl: "http://127.0.0.1:4010",
 *     appKey: "7e57c0de-0000-4000-8000-000000000001",
 *     crypto: NodeCrypto,
 *     privateKeys: { 1: Redacted.make(privateKeyPem) }
 *   })
 *   return yield* client.createOrder({ orderId: "M-1001", amount: "10.00", currency: "USD" })
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 */
export const make = (options: Options): Effect.Effect<Service, ConfigurationError, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const settings = yield* settingsOf(options, { retry: defaultRetryPolicy, timeout: defaultTimeout })
    let keyRing: KeyRing.KeyRing<Crypto.Signer>
    if (options.keyRing !== undefined) keyRing = yield* checkRing(options.keyRing)
    else if (options.crypto !== undefined && options.privateKeys !== undefined) {
      keyRing = yield* checkRing(yield* importRing(options.crypto, options.privateKeys, options.currentKeyVersion))
    } else return yield* invalidOption("keyRing", "give a keyRing of signers, or crypto with privateKeys")
    const baseClient = yield* HttpClient.HttpClient
    // With other calls of this client in flight, a signature (about a millisecond of CPU for a
    // 2048-bit key) is made off the event loop when the key can (`signOffThread`): meanwhile the
    // loop sends and reads the other calls, and whatever else the merchant's process serves. A call
    // alone signs on the loop: the hand-over to another thread and back would only add to its time.
    let callsInFlight = 0
    const callEnded = Effect.sync(() => {
      callsInFlight--
    })
    const client = baseClient.pipe(
      HttpClient.mapRequest(flow(HttpClientRequest.prependUrl(settings.baseUrl), HttpClientRequest.acceptJson)),
      // Signing is a request mapper, not a step before `execute`: HttpClient re-runs the mappers on
      // every execution, so each attempt (the retry loop of internal/retryLoop, or a retryTransient the user adds in
      // transformClient) gets a new X-R-TS and a new signature. A retried request with the first
      // attempt's timestamp would fall outside the 5 minute window on long backoffs.
      HttpClient.mapRequestEffect(
        requestSigner({ appKey: settings.appKey, keyRing, offThread: () => callsInFlight > 1 })
      ),
      options.transformClient ?? identity
    )
    const keyVersion = keyRing.current

    /** One attempt: send, read the whole answer within `timeoutMs`, classify it. */
    const attempt = (
      request: HttpClientRequest.HttpClientRequest,
      order: { readonly orderId: string; readonly amount: string; readonly currency: string },
      timeoutMs: number,
      scope: "attempt" | "deadline"
    ): Effect.Effect<Wire.CreateOrderResult, AttemptFailure> =>
      Effect.gen(function* () {
        const answered = yield* client.execute(request).pipe(
          Effect.flatMap((response) => Effect.map(response.text, (text) => ({ response, text }))),
          Effect.mapError((error) => fromHttpClientError(error, settings.baseUrl)),
          (effect) => timeoutOption(effect, timeoutMs)
        )
        if (Option.isNone(answered)) {
          const timeout = Duration.millis(timeoutMs)
          return yield* Effect.fail<AttemptFailure>({
            error: new Timeout({
              message:
                scope === "attempt"
                  ? `no answer from ${settings.baseUrl} within ${Duration.format(timeout)}`
                  : `no answer from ${settings.baseUrl} before the retry deadline`,
              scope,
              timeout
            }),
            retryAfterMs: undefined
          })
        }
        const { response, text } = answered.value
        // Read once: each read of `headers` converts the runtime's Headers object anew.
        const headers = response.headers
        const nowMs = yield* Clock.currentTimeMillis
        if (settings.environment === "sandbox") {
          const check = headers["x-r-signature-check"]
          if (check === "invalid" || check === "missing") {
            yield* Effect.logWarning(
              `sandbox: production would refuse this request's signature (X-R-Signature-Check: ${check}); ` +
                `check the key of version ${keyVersion} against the public key uploaded as version ${keyVersion}`
            )
          }
        }
        return yield* classifyCreateOrder({ status: response.status, headers, text }, { nowMs, keyVersion, ...order })
      })

    // Made once per client. No stack trace: the three frames Effect would capture on every call lie
    // inside this module, they would not show the caller's line, and capturing them was the largest
    // single cost the client added to a call (an Error per call, about 40 us).
    const span = {
      attributes: { "pc.environment": settings.environment, "pc.key_version": keyVersion },
      captureStackTrace: false
    } as const

    const createOrder = (
      input: CreateOrderInput,
      call?: CallOptions
    ): Effect.Effect<Wire.CreateOrderResult, PaymentClientError> =>
      Effect.suspend(() => {
        const body = encodeCreateOrder(input)
        if (Either.isLeft(body)) return Effect.fail(body.left)
        const deadlineMs =
          call?.timeout === undefined ? Either.right(settings.deadlineMs) : positiveDuration("timeout", call.timeout)
        if (Either.isLeft(deadlineMs)) return Effect.fail(deadlineMs.left)
        // Serialised once: these exact bytes are signed and sent on every attempt. Retrying is safe
        // because the orderId makes create-order idempotent on the service (same appKey + orderId +
        // amount + currency returns the first order), so a retry after a lost answer never makes a
        // second order.
        const request = HttpClientRequest.post(Wire.CREATE_ORDER_PATH).pipe(
          HttpClientRequest.bodyUint8Array(body.right.body, "application/json")
        )
        const order = { orderId: input.orderId, amount: body.right.amount, currency: input.currency }
        const calling = withRetries(settings, deadlineMs.right, (timeoutMs, scope) =>
          attempt(request, order, timeoutMs, scope)
        )
        callsInFlight++
        return Effect.ensuring(call?.signal === undefined ? calling : abortable(calling, call.signal), callEnded)
      }).pipe(Effect.withSpan("PaymentClient.createOrder", span), withRedactedHeaders)

    return PaymentClient.of({
      environment: settings.environment,
      baseUrl: settings.baseUrl,
      appKey: settings.appKey,
      keyRing,
      client,
      createOrder
    })
  })

/**
 * Provides the {@link PaymentClient} from options; requires an `HttpClient` layer: on Node
 * `NodeHttpClient.layer` of `@pc/client/node` (`node:http` with keep-alive, about half the CPU per
 * request of Node's `fetch`), elsewhere `FetchHttpClient.layer`.
 *
 * Fails with `ConfigurationError` like {@link make}.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { NodeHttpClient } from "@pc/client/node"
 * import { Layer } from "effect"
 *
 * const live = PaymentClient.layer({ environment: "sandbox", baseUrl, appKey, keyRing }).pipe(
 *   Layer.provide(NodeHttpClient.layer) // FetchHttpClient.layer in browsers and workers
 * )
 * ```
 */
export const layer = (options: Options): Layer.Layer<PaymentClient, ConfigurationError, HttpClient.HttpClient> =>
  Layer.effect(PaymentClient, make(options))

/**
 * Where {@link layerConfig} reads each setting. Every field has a default `Config` except `crypto`.
 *
 * @example
 * ```ts
 * import type { PaymentClient } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 * import { Config } from "effect"
 *
 * const options: PaymentClient.ConfigOptions = {
 *   crypto: NodeCrypto,
 *   privateKeys: { 1: Config.redacted("PC_PRIVATE_KEY_V1"), 2: Config.redacted("PC_PRIVATE_KEY_V2") },
 *   currentKeyVersion: Config.integer("PC_KEY_VERSION")
 * }
 * ```
 */
export interface ConfigOptions {
  /** Imports the private keys: `NodeCrypto` or `WebCrypto`. */
  readonly crypto: Crypto.CryptoProvider
  /** Default `PC_ENVIRONMENT` (`sandbox`, `production`, `gray`), itself defaulting to `sandbox`. */
  readonly environment?: Config.Config<Environment.Environment> | undefined
  /** Default `PC_BASE_URL`. */
  readonly baseUrl?: Config.Config<string> | undefined
  /** Default `PC_APP_KEY`. */
  readonly appKey?: Config.Config<string> | undefined
  /** PEM private keys by version; default `{ [PC_KEY_VERSION or 1]: PC_PRIVATE_KEY }`. */
  readonly privateKeys?: { readonly [version: number]: Config.Config<Redacted.Redacted<string>> } | undefined
  /** Default `PC_KEY_VERSION`, or the highest version given. */
  readonly currentKeyVersion?: Config.Config<number> | undefined
  /** Default `PC_TIMEOUT` (e.g. `10 seconds`), or {@link defaultTimeout}. */
  readonly timeout?: Config.Config<Duration.Duration> | undefined
  readonly retry?: RetryOptions | undefined
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * Provides the {@link PaymentClient} from `Config` (environment variables by default), with the
 * private keys read as `Redacted`.
 *
 * Fails with `ConfigError` for a missing or malformed setting, and `ConfigurationError` like {@link make}.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { PaymentClient } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 * import { Layer } from "effect"
 *
 * // PC_ENVIRONMENT, PC_BASE_URL, PC_APP_KEY, PC_PRIVATE_KEY (PEM), PC_KEY_VERSION
 * const live = PaymentClient.layerConfig({ crypto: NodeCrypto }).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 */
export const layerConfig = (
  options: ConfigOptions
): Layer.Layer<PaymentClient, ConfigError.ConfigError | ConfigurationError, HttpClient.HttpClient> =>
  Layer.effect(
    PaymentClient,
    Effect.gen(function* () {
      const environment = yield* options.environment ??
        Config.literal("sandbox", "production", "gray")("PC_ENVIRONMENT").pipe(Config.withDefault("sandbox" as const))
      const baseUrl = yield* options.baseUrl ?? Config.string("PC_BASE_URL")
      const appKey = yield* options.appKey ?? Config.string("PC_APP_KEY")
      const currentKeyVersion = yield* Config.option(options.currentKeyVersion ?? Config.integer("PC_KEY_VERSION"))
      const privateKeys = new Map<number, Redacted.Redacted<string>>()
      if (options.privateKeys === undefined) {
        privateKeys.set(
          Option.getOrElse(currentKeyVersion, () => 1),
          yield* Config.redacted("PC_PRIVATE_KEY")
        )
      } else {
        for (const [version, config] of yield* keyEntries(options.privateKeys, "privateKeys")) {
          privateKeys.set(version, yield* config)
        }
      }
      const timeout = yield* Config.option(options.timeout ?? Config.duration("PC_TIMEOUT"))
      return yield* make({
        environment,
        baseUrl,
        appKey,
        crypto: options.crypto,
        privateKeys,
        currentKeyVersion: Option.getOrUndefined(currentKeyVersion),
        timeout: Option.getOrUndefined(timeout),
        retry: options.retry,
        transformClient: options.transformClient
      })
    })
  )

/**
 * Creates a payment order with the {@link PaymentClient} in context.
 *
 * Fails with the errors of {@link Service.createOrder}.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { Effect } from "effect"
 *
 * const program = PaymentClient.createOrder({ orderId: "M-1001", amount: "10.00", currency: "USD" }).pipe(
 *   Effect.tap((order) => Effect.log(order.h5Url))
 * )
 * ```
 */
export const createOrder = (
  input: CreateOrderInput,
  options?: CallOptions
): Effect.Effect<Wire.CreateOrderResult, PaymentClientError, PaymentClient> =>
  Effect.flatMap(PaymentClient, (client) => client.createOrder(input, options))

/** Interrupts `effect` when `signal` aborts (at once when it already has). */
const abortable = <A, E>(effect: Effect.Effect<A, E>, signal: AbortSignal): Effect.Effect<A, E> =>
  Effect.raceFirst(
    effect,
    Effect.async<never>((resume) => {
      const onAbort = () => resume(Effect.interrupt)
      if (signal.aborted) onAbort()
      else signal.addEventListener("abort", onAbort, { once: true })
      return Effect.sync(() => signal.removeEventListener("abort", onAbort))
    })
  )
