/**
 * The Merchant Payment Connect client as an Effect service: it signs every request with the
 * merchant's current key, creates orders, retries what is safe to retry, and fails with the typed
 * errors of `PaymentClientError`. It runs on any `HttpClient` layer (fetch, Node, Bun, ...).
 *
 * @since 0.1.0
 */
import { Crypto, Environment, Headers, KeyRing, Money } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import * as PlatformHeaders from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
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
import * as ParseResult from "effect/ParseResult"
import * as Random from "effect/Random"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { utf8 } from "./internal/bytes.js"
import { keyEntries, keyImportError } from "./internal/keys.js"
import { type AttemptFailure, classifyCreateOrder } from "./internal/response.js"
import { backoffDelay } from "./internal/retry.js"
import { requestSigner, SigningFailure } from "./internal/signing.js"
import { timeoutOption } from "./internal/timeout.js"
import {
  ConfigurationError,
  InvalidRequest,
  isRetryable,
  type PaymentClientError,
  Timeout,
  TransportError
} from "./PaymentClientError.js"

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
 * The default retry policy: 4 attempts, 250 ms doubling up to 8 s, jittered, within 30 s.
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
  deadline: "30 seconds",
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
  readonly createOrder: (input: CreateOrderInput) => Effect.Effect<Wire.CreateOrderResult, PaymentClientError>
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

const invalidOption = (option: string, message: string) =>
  new ConfigurationError({ message: `invalid option ${option}: ${message}`, reason: "InvalidOption", option })

const positiveDuration = (option: string, input: unknown): Either.Either<number, ConfigurationError> => {
  const decoded = Duration.decodeUnknown(input)
  if (Option.isNone(decoded) || !Duration.isFinite(decoded.value) || Duration.toMillis(decoded.value) <= 0) {
    return Either.left(invalidOption(option, 'expected a positive, finite duration such as 10000 or "10 seconds"'))
  }
  return Either.right(Duration.toMillis(decoded.value))
}

interface Settings {
  readonly environment: Environment.Environment
  readonly baseUrl: string
  readonly appKey: string
  readonly timeoutMs: number
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly deadlineMs: number
  readonly jitter: boolean
}

const settingsOf = (options: CommonOptions): Either.Either<Settings, ConfigurationError> =>
  Either.gen(function* () {
    if (!Environment.isEnvironment(options.environment)) {
      return yield* Either.left(invalidOption("environment", 'expected "sandbox", "production" or "gray"'))
    }
    let url: URL
    try {
      url = new URL(options.baseUrl)
    } catch {
      return yield* Either.left(invalidOption("baseUrl", `${JSON.stringify(options.baseUrl)} is not an absolute URL`))
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return yield* Either.left(invalidOption("baseUrl", "expected an http: or https: URL"))
    }
    if (url.search !== "" || url.hash !== "") {
      return yield* Either.left(invalidOption("baseUrl", "expected no query string or fragment"))
    }
    if (url.pathname !== "/") {
      return yield* Either.left(
        invalidOption(
          "baseUrl",
          `expected scheme, host and port only (such as https://api.example.com), not the path ${JSON.stringify(url.pathname)}: ` +
            "the signature covers the API path as sent (/openapi/v2/...), so a gateway prefix in the base URL " +
            "cannot be signed and the service would refuse every request"
        )
      )
    }
    if (url.username !== "" || url.password !== "") {
      // Never echo them: they are credentials.
      return yield* Either.left(
        invalidOption(
          "baseUrl",
          "expected no user info (user:password@): it would be dropped, not sent; add an Authorization header in transformClient"
        )
      )
    }
    if (typeof options.appKey !== "string" || !Headers.isAppKey(options.appKey)) {
      return yield* Either.left(invalidOption("appKey", "the appKey is the UUID issued by the merchant platform"))
    }
    // `{ ...defaults, ...retry }` would let `{ maxAttempts: undefined }` (a spread of an optional
    // setting) erase the default: only the fields actually given override it.
    const given = Object.entries(options.retry ?? {}).filter(([, value]) => value !== undefined)
    const policy: RetryPolicy = { ...defaultRetryPolicy, ...Object.fromEntries(given) }
    if (!Number.isSafeInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
      return yield* Either.left(invalidOption("retry.maxAttempts", "expected a whole number >= 1"))
    }
    if (typeof policy.jitter !== "boolean") {
      return yield* Either.left(invalidOption("retry.jitter", "expected true or false"))
    }
    return {
      environment: options.environment,
      baseUrl: url.origin,
      appKey: options.appKey,
      timeoutMs: yield* positiveDuration("timeout", options.timeout ?? defaultTimeout),
      maxAttempts: policy.maxAttempts,
      baseDelayMs: yield* positiveDuration("retry.baseDelay", policy.baseDelay),
      maxDelayMs: yield* positiveDuration("retry.maxDelay", policy.maxDelay),
      deadlineMs: yield* positiveDuration("retry.deadline", policy.deadline),
      jitter: policy.jitter
    }
  })

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
export const importKeyRing = (
  crypto: Crypto.CryptoProvider,
  privateKeys: KeyRing.KeyEntries<Redacted.Redacted<string>>,
  current?: number
): Effect.Effect<KeyRing.KeyRing<Crypto.Signer>, ConfigurationError> =>
  Effect.gen(function* () {
    const entries = yield* keyEntries(privateKeys, "privateKeys")
    const pems = new Map<number, string>()
    for (const [n, pem] of entries) {
      if (!Redacted.isRedacted(pem)) {
        return yield* invalidOption(
          `privateKeys[${n}]`,
          "expected the PEM as Redacted.make(pem), so it never lands in logs"
        )
      }
      pems.set(n, Redacted.value(pem))
    }
    const signers = new Map<number, Crypto.Signer>()
    for (const [version, pem] of pems) {
      const signer = yield* Effect.tryPromise({
        try: () => crypto.importPrivateKey(pem),
        catch: (error) => keyImportError(error, `privateKeys[${version}]`)
      })
      signers.set(version, signer)
    }
    return yield* Effect.try({
      try: () => KeyRing.make(signers, current),
      catch: (error) => keyImportError(error, "currentKeyVersion")
    })
  })

const checkRing = (
  ring: KeyRing.KeyRing<Crypto.Signer>
): Either.Either<KeyRing.KeyRing<Crypto.Signer>, ConfigurationError> => {
  if (ring === null || typeof ring !== "object" || typeof ring.get !== "function" || ring.currentKey === undefined) {
    return Either.left(
      invalidOption("keyRing", "expected a KeyRing of signers (KeyRing.make or KeyRing.importSigners)")
    )
  }
  for (const version of ring.versions) {
    const signer = ring.get(version)
    if (signer === undefined || typeof signer.sign !== "function") {
      return Either.left(invalidOption(`keyRing[${version}]`, "expected a Signer"))
    }
    if (!(signer.modulusLength >= Crypto.MIN_MODULUS_LENGTH)) {
      return Either.left(
        new ConfigurationError({
          message: `keyRing[${version}]: RSA key of ${signer.modulusLength} bits refused: keys must be ${Crypto.MIN_MODULUS_LENGTH} bits or more`,
          reason: "WeakKey",
          option: `keyRing[${version}]`
        })
      )
    }
  }
  return Either.right(ring)
}

const decodeOrderId = Schema.decodeUnknownEither(Wire.OrderId)

const localInvalid = (field: string, message: string) =>
  new InvalidRequest({
    message: `invalid ${field}: ${message} (refused before sending)`,
    source: "local",
    code: "paramError",
    field,
    serverMessage: undefined,
    status: undefined,
    requestId: undefined
  })

/**
 * Checks a create-order input and serialises it once, to the exact bytes that are signed and sent.
 * The amount becomes the canonical string for the currency (`10.5` USD is `"10.50"`).
 */
const encodeCreateOrder = (input: CreateOrderInput): Either.Either<Uint8Array, InvalidRequest> => {
  const orderId = decodeOrderId(input?.orderId)
  if (Either.isLeft(orderId)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(orderId.left)[0]
    return Either.left(localInvalid("orderId", issue?.message ?? "expected a string of 1 to 64 characters"))
  }
  if (typeof input.currency !== "string")
    return Either.left(localInvalid("currency", 'expected a string such as "USD"'))
  const amount = Money.canonicalAmount(input.amount, input.currency)
  if (!amount.ok) {
    return Either.left(
      localInvalid(amount.error.reason === "UnknownCurrency" ? "currency" : "amount", amount.error.message)
    )
  }
  return Either.right(utf8(JSON.stringify({ orderId: orderId.right, amount: amount.amount, currency: input.currency })))
}

const describeCause = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  const inner = (cause as { readonly cause?: unknown }).cause
  const detail =
    inner instanceof Error
      ? `: ${(inner as { readonly code?: unknown }).code ?? ""}${(inner as { readonly code?: unknown }).code ? " " : ""}${inner.message}`
      : ""
  return `${cause.message}${detail}`
}

const fromHttpClientError = (error: HttpClientError.HttpClientError, baseUrl: string): AttemptFailure => {
  const failure = (e: PaymentClientError): AttemptFailure => ({ error: e, retryAfterMs: undefined })
  if (error._tag === "RequestError") {
    if (error.cause instanceof SigningFailure) {
      return failure(
        new ConfigurationError({
          message: `${error.description ?? "the signer failed"}: ${describeCause(error.cause.cause)}`,
          reason: "BadKey",
          option: "keyRing"
        })
      )
    }
    if (error.reason !== "Transport") {
      return failure(
        new ConfigurationError({
          message: `the request could not be built (${error.reason}): ${error.description ?? describeCause(error.cause)}`,
          reason: "InvalidOption",
          option: error.reason === "InvalidUrl" ? "baseUrl" : undefined
        })
      )
    }
    return failure(
      new TransportError({ message: `could not reach ${baseUrl}: ${describeCause(error.cause)}`, cause: error.cause })
    )
  }
  return failure(
    new TransportError({
      message: `the answer from ${baseUrl} (HTTP ${error.response.status}) could not be read: ${describeCause(error.cause)}`,
      cause: error.cause
    })
  )
}

// Signatures are not secrets, but they are never logged or traced whole either. The extended list
// is made once per list in force (usually the one default), not on every call.
const withSignature = new WeakMap<ReadonlyArray<string | RegExp>, ReadonlyArray<string | RegExp>>()
const redactSignature = (names: ReadonlyArray<string | RegExp>): ReadonlyArray<string | RegExp> => {
  let extended = withSignature.get(names)
  if (extended === undefined) {
    extended = names.includes("x-r-signature") ? names : [...names, "x-r-signature"]
    withSignature.set(names, extended)
  }
  return extended
}
const withRedactedHeaders = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.locallyWith(effect, PlatformHeaders.currentRedactedNames, redactSignature)

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
    const settings = yield* settingsOf(options)
    let keyRing: KeyRing.KeyRing<Crypto.Signer>
    if (options.keyRing !== undefined) keyRing = yield* checkRing(options.keyRing)
    else if (options.crypto !== undefined && options.privateKeys !== undefined) {
      keyRing = yield* checkRing(yield* importKeyRing(options.crypto, options.privateKeys, options.currentKeyVersion))
    } else return yield* invalidOption("keyRing", "give a keyRing of signers, or crypto with privateKeys")
    const baseClient = yield* HttpClient.HttpClient
    const client = baseClient.pipe(
      HttpClient.mapRequest(flow(HttpClientRequest.prependUrl(settings.baseUrl), HttpClientRequest.acceptJson)),
      // Signing is a request mapper, not a step before `execute`: HttpClient re-runs the mappers on
      // every execution, so each attempt (our retry loop below, or a retryTransient the user adds in
      // transformClient) gets a new X-R-TS and a new signature. A retried request with the first
      // attempt's timestamp would fall outside the 5 minute window on long backoffs.
      HttpClient.mapRequestEffect(requestSigner({ appKey: settings.appKey, keyRing })),
      options.transformClient ?? identity
    )
    const keyVersion = keyRing.current

    /** One attempt: send, read the whole answer within `timeoutMs`, classify it. */
    const attempt = (
      request: HttpClientRequest.HttpClientRequest,
      orderId: string,
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
        return yield* classifyCreateOrder({ status: response.status, headers, text }, { nowMs, keyVersion, orderId })
      })

    /**
     * Our own retry loop rather than `HttpClient.retryTransient`: the decision rests on the decoded
     * envelope's code (a 500 carrying paramError must not be retried, a 200 carrying signError is
     * an error), the wait must honour Retry-After, and the whole call has a deadline. Each pass
     * calls `client.execute`, which re-runs the signing mapper: a fresh timestamp and signature.
     */
    const withRetries = (
      run: (timeoutMs: number, scope: "attempt" | "deadline") => Effect.Effect<Wire.CreateOrderResult, AttemptFailure>
    ): Effect.Effect<Wire.CreateOrderResult, PaymentClientError> =>
      Effect.gen(function* () {
        const startedAt = yield* Clock.currentTimeMillis
        let attempts = 0
        while (true) {
          const remaining = settings.deadlineMs - ((yield* Clock.currentTimeMillis) - startedAt)
          const budget = Math.min(settings.timeoutMs, remaining)
          const result = yield* Effect.either(run(budget, budget < settings.timeoutMs ? "deadline" : "attempt"))
          if (Either.isRight(result)) return result.right
          attempts++
          const { error, retryAfterMs } = result.left
          // signError, paramError and duplicateOrder would fail the same way again: never retried.
          if (!isRetryable(error) || attempts >= settings.maxAttempts) return yield* Effect.fail(error)
          const backoff = backoffDelay(settings, attempts, yield* Random.next)
          // The server knows best when it can take the request again: wait at least Retry-After.
          const delay = Math.max(backoff, retryAfterMs ?? 0)
          const elapsed = (yield* Clock.currentTimeMillis) - startedAt
          // A wait that ends past the deadline cannot lead to a success in time: fail now, with the real cause.
          if (elapsed + delay >= settings.deadlineMs) return yield* Effect.fail(error)
          yield* Effect.logDebug(`createOrder attempt ${attempts} failed (${error._tag}); retrying in ${delay} ms`)
          yield* Effect.sleep(Duration.millis(delay))
        }
      })

    // Made once per client. No stack trace: the three frames Effect would capture on every call lie
    // inside this module, they would not show the caller's line, and capturing them was the largest
    // single cost the client added to a call (an Error per call, about 40 us).
    const span = {
      attributes: { "pc.environment": settings.environment, "pc.key_version": keyVersion },
      captureStackTrace: false
    } as const

    const createOrder = (input: CreateOrderInput): Effect.Effect<Wire.CreateOrderResult, PaymentClientError> =>
      Effect.suspend(() => {
        const body = encodeCreateOrder(input)
        if (Either.isLeft(body)) return Effect.fail(body.left)
        // Serialised once: these exact bytes are signed and sent on every attempt. Retrying is safe
        // because the orderId makes create-order idempotent on the service (same appKey + orderId +
        // amount + currency returns the first order), so a retry after a lost answer never makes a
        // second order.
        const request = HttpClientRequest.post(Wire.CREATE_ORDER_PATH).pipe(
          HttpClientRequest.bodyUint8Array(body.right, "application/json")
        )
        return withRetries((timeoutMs, scope) => attempt(request, input.orderId, timeoutMs, scope))
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
  input: CreateOrderInput
): Effect.Effect<Wire.CreateOrderResult, PaymentClientError, PaymentClient> =>
  Effect.flatMap(PaymentClient, (client) => client.createOrder(input))
