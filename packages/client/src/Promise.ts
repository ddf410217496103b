/**
 * The client for merchants who do not use Effect: `createPaymentClient` with `createOrder` and
 * callback verification as plain Promises, throwing `PaymentConnectError` subclasses (with a
 * stable `code`) so that `instanceof` and `switch (error.code)` work. Runs on the global `fetch`
 * and, unless told otherwise, on WebCrypto (`@pc/crypto-web`: Node 20+, browsers, Deno, Bun, workers).
 *
 * Also published as the subpath `@pc/client/promise`:
 * `import { createPaymentClient, SignatureRejectedError } from "@pc/client/promise"`.
 *
 * @since 0.1.0
 */
import type { Crypto, Environment, KeyRing, Wire } from "@pc/core"
import { WebCrypto } from "@pc/crypto-web"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Callback from "./Callback.js"
import * as PaymentClient from "./PaymentClient.js"
import * as PaymentClientError from "./PaymentClientError.js"
import type * as ReplayGuard from "./ReplayGuard.js"

/**
 * The stable codes of {@link PaymentConnectError}, one per error class.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * const code: PaymentConnect.PaymentConnectErrorCode = "ERR_PC_SIGNATURE_REJECTED"
 * ```
 */
export type PaymentConnectErrorCode =
  | "ERR_PC_SIGNATURE_REJECTED"
  | "ERR_PC_INVALID_REQUEST"
  | "ERR_PC_DUPLICATE_ORDER"
  | "ERR_PC_RATE_LIMITED"
  | "ERR_PC_SERVER_ERROR"
  | "ERR_PC_TRANSPORT"
  | "ERR_PC_TIMEOUT"
  | "ERR_PC_UNEXPECTED_RESPONSE"
  | "ERR_PC_CONFIGURATION"
  | "ERR_PC_CALLBACK_VERIFICATION"

/**
 * The base class of every error the Promise client throws: `code` is stable to switch on, the
 * message names the cause and never contains keys or signatures, `cause` is the Effect error.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * try {
 *   await client.createOrder({ orderId: "M-1", amount: "10.00", currency: "USD" })
 * } catch (error) {
 *   if (error instanceof PaymentConnect.PaymentConnectError) console.error(error.code, error.message)
 * }
 * ```
 */
export class PaymentConnectError extends Error {
  constructor(
    readonly code: PaymentConnectErrorCode,
    message: string,
    options?: { readonly cause?: unknown }
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
  }
}

/**
 * The service refused the signature (`signError`); never retried. `hint` names the likely cause,
 * `clockSkewMs` is `local now - server Date` when known.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.SignatureRejectedError) console.error(error.hint)
 * ```
 */
export class SignatureRejectedError extends PaymentConnectError {
  readonly serverMessage: string
  readonly keyVersion: number
  readonly clockSkewMs: number | undefined
  readonly hint: string | undefined
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.SignatureRejected) {
    super("ERR_PC_SIGNATURE_REJECTED", error.message, { cause: error })
    this.serverMessage = error.serverMessage
    this.keyVersion = error.keyVersion
    this.clockSkewMs = error.clockSkewMs
    this.hint = error.hint
    this.requestId = error.requestId
  }
}

/**
 * The request is invalid, found locally (`source: "local"`, before any network call) or by the
 * service (`paramError` and friends); `field` names the field when known. Never retried.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.InvalidRequestError) console.error(error.field)
 * ```
 */
export class InvalidRequestError extends PaymentConnectError {
  readonly source: "local" | "server"
  readonly field: string | undefined
  readonly serverCode: PaymentClientError.InvalidRequestCode
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.InvalidRequest) {
    super("ERR_PC_INVALID_REQUEST", error.message, { cause: error })
    this.source = error.source
    this.field = error.field
    this.serverCode = error.code
    this.requestId = error.requestId
  }
}

/**
 * The orderId was already used with a different amount or currency (`duplicateOrder`).
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.DuplicateOrderError) console.error(error.orderId)
 * ```
 */
export class DuplicateOrderError extends PaymentConnectError {
  readonly orderId: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.DuplicateOrder) {
    super("ERR_PC_DUPLICATE_ORDER", error.message, { cause: error })
    this.orderId = error.orderId
    this.requestId = error.requestId
  }
}

/**
 * Still rate limited (`rateLimited`) after the retries; `retryAfterMs` from the server's `Retry-After`.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.RateLimitedError) setTimeout(retry, error.retryAfterMs ?? 1000)
 * ```
 */
export class RateLimitedError extends PaymentConnectError {
  readonly retryAfterMs: number | undefined
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.RateLimited, retryAfterMs: number | undefined) {
    super("ERR_PC_RATE_LIMITED", error.message, { cause: error })
    this.retryAfterMs = retryAfterMs
    this.requestId = error.requestId
  }
}

/**
 * The service failed (`internalError` or a 5xx envelope) after the retries.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.ServerError) console.error(error.status, error.requestId)
 * ```
 */
export class ServerError extends PaymentConnectError {
  readonly status: number
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.ServerError) {
    super("ERR_PC_SERVER_ERROR", error.message, { cause: error })
    this.status = error.status
    this.requestId = error.requestId
  }
}

/**
 * The service could not be reached, or its answer not read, after the retries.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.TransportError) console.error(error.message)
 * ```
 */
export class TransportError extends PaymentConnectError {
  constructor(error: PaymentClientError.TransportError) {
    super("ERR_PC_TRANSPORT", error.message, { cause: error })
  }
}

/**
 * No answer in time: an attempt's timeout after the retries (`scope: "attempt"`), or the retry deadline.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.TimeoutError) console.error(error.scope)
 * ```
 */
export class TimeoutError extends PaymentConnectError {
  readonly scope: "attempt" | "deadline"
  constructor(error: PaymentClientError.Timeout) {
    super("ERR_PC_TIMEOUT", error.message, { cause: error })
    this.scope = error.scope
  }
}

/**
 * The answer is not the service's envelope (e.g. a proxy's HTML page); `excerpt` holds at most 200 characters.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.UnexpectedResponseError) console.error(error.status, error.excerpt)
 * ```
 */
export class UnexpectedResponseError extends PaymentConnectError {
  readonly status: number
  readonly excerpt: string
  readonly requestId: string | undefined
  constructor(error: PaymentClientError.UnexpectedResponse) {
    super("ERR_PC_UNEXPECTED_RESPONSE", error.message, { cause: error })
    this.status = error.status
    this.excerpt = error.excerpt
    this.requestId = error.requestId
  }
}

/**
 * The client or verifier is misconfigured: a bad option, a bad or weak key, an unknown key version.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.ConfigurationError && error.reason === "WeakKey") process.exit(1)
 * ```
 */
export class ConfigurationError extends PaymentConnectError {
  readonly reason: PaymentClientError.ConfigurationErrorReason
  readonly option: string | undefined
  constructor(error: PaymentClientError.ConfigurationError) {
    super("ERR_PC_CONFIGURATION", error.message, { cause: error })
    this.reason = error.reason
    this.option = error.option
  }
}

/**
 * A refused callback; `reason` tells which check refused it (see `Callback.CallbackVerificationErrorReason`).
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * if (error instanceof PaymentConnect.CallbackVerificationError) console.warn(error.reason)
 * ```
 */
export class CallbackVerificationError extends PaymentConnectError {
  readonly reason: Callback.CallbackVerificationErrorReason
  readonly keyVersion: number | undefined
  constructor(error: Callback.CallbackVerificationError) {
    super("ERR_PC_CALLBACK_VERIFICATION", error.message, { cause: error })
    this.reason = error.reason
    this.keyVersion = error.keyVersion
  }
}

const toPromiseError = (
  error: PaymentClientError.PaymentClientError | Callback.CallbackVerificationError
): PaymentConnectError => {
  switch (error._tag) {
    case "SignatureRejected":
      return new SignatureRejectedError(error)
    case "InvalidRequest":
      return new InvalidRequestError(error)
    case "DuplicateOrder":
      return new DuplicateOrderError(error)
    case "RateLimited":
      return new RateLimitedError(
        error,
        error.retryAfter === undefined ? undefined : Duration.toMillis(error.retryAfter)
      )
    case "ServerError":
      return new ServerError(error)
    case "TransportError":
      return new TransportError(error)
    case "Timeout":
      return new TimeoutError(error)
    case "UnexpectedResponse":
      return new UnexpectedResponseError(error)
    case "ConfigurationError":
      return new ConfigurationError(error)
    case "CallbackVerificationError":
      return new CallbackVerificationError(error)
  }
}

const run = async <A>(
  effect: Effect.Effect<A, PaymentClientError.PaymentClientError | Callback.CallbackVerificationError>
): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) throw toPromiseError(failure.value)
  throw Cause.squash(exit.cause)
}

/**
 * How the Promise client finds the platform keys for callbacks: PEM text (imported with `crypto`)
 * or verifiers already imported, per environment.
 *
 * @example
 * ```ts
 * import type * as PaymentConnect from "@pc/client/promise"
 *
 * const callbacks: PaymentConnect.CallbackOptions = { platformKeys: { production: { 1: productionV1Pem } } }
 * ```
 */
export interface CallbackOptions {
  readonly platformKeys: {
    readonly [E in Environment.Environment]?: KeyRing.KeyEntries<string> | KeyRing.KeyRing<Crypto.Verifier> | undefined
  }
  /** Default: an in-memory guard; `false` turns replay protection off. */
  readonly replayGuard?: ReplayGuard.ReplayGuard | false | undefined
  /** The largest body read; default 1 MiB. */
  readonly maxBodyBytes?: number | undefined
}

/**
 * The options of {@link createCallbackVerifier}.
 *
 * @example
 * ```ts
 * import type { CallbackVerifierOptions } from "@pc/client/promise"
 *
 * const options: CallbackVerifierOptions = {
 *   environment: "production", appKey, platformKeys: { production: { 1: productionV1Pem } }
 * }
 * ```
 */
export interface CallbackVerifierOptions extends CallbackOptions {
  readonly environment: Environment.Environment
  /** Your own merchant appKey. */
  readonly appKey: string
  /** Imports PEM platform keys; default `WebCrypto` (`@pc/crypto-web`). `NodeCrypto` (`@pc/crypto-node`) works too. */
  readonly crypto?: Crypto.CryptoProvider | undefined
}

/**
 * What an event handler gets: the verified, decoded event.
 *
 * @example
 * ```ts
 * import type * as PaymentConnect from "@pc/client/promise"
 *
 * const onEvent: PaymentConnect.OnEvent = async (event) => {
 *   if (event.eventType === "order.paid") await markPaid(event.outerOrder)
 * }
 * ```
 */
export type OnEvent = (event: Wire.CallbackEvent) => void | PromiseLike<void>

/**
 * A callback verifier with Promise methods and ready-made handlers.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * const verifier = await PaymentConnect.createCallbackVerifier(options)
 * const event = await verifier.verifyCallback({ headers: req.headers, body: rawBody })
 * ```
 */
export interface CallbackVerifierClient {
  /**
   * Verifies headers and raw body and returns the decoded event.
   * Throws {@link CallbackVerificationError}.
   */
  verifyCallback(input: Callback.CallbackInput): Promise<Wire.CallbackEvent>
  /**
   * Verifies a Fetch `Request` (reads `await request.arrayBuffer()`).
   * Throws {@link CallbackVerificationError}.
   */
  verifyCallbackRequest(request: Callback.FetchRequest): Promise<Wire.CallbackEvent>
  /** Verifies, runs `onEvent`, and answers 200 / 400 / 401 / 500 with an envelope-like JSON `Response`. Never throws. */
  handleCallbackRequest(request: Callback.FetchRequest, onEvent: OnEvent): Promise<Response>
  /**
   * Verifies a Node `IncomingMessage` / Express `Request`, reading the raw body from the stream
   * (or `req.body` when `express.raw()` made it a Buffer).
   * Throws {@link CallbackVerificationError} (`BodyAlreadyParsed` when `express.json()` ran first).
   */
  verifyNodeCallback(req: Callback.NodeRequest): Promise<Wire.CallbackEvent>
  /** A Node `http` / Express handler: verifies, runs `onEvent`, writes 200 / 400 / 401 / 500. Never throws. */
  nodeCallbackHandler(onEvent: OnEvent): (req: Callback.NodeRequest, res: Callback.NodeResponse) => Promise<void>
}

const isRing = (value: unknown): value is KeyRing.KeyRing<Crypto.Verifier> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { get?: unknown }).get === "function" &&
  Array.isArray((value as { versions?: unknown }).versions)

const makeVerifier = (
  options: CallbackVerifierOptions
): Effect.Effect<Callback.Service, PaymentClientError.ConfigurationError> =>
  Effect.gen(function* () {
    const rings: { [E in Environment.Environment]?: KeyRing.KeyRing<Crypto.Verifier> } = {}
    const pems: { [E in Environment.Environment]?: KeyRing.KeyEntries<string> } = {}
    for (const [environment, keys] of Object.entries(options.platformKeys ?? {}) as Array<
      [Environment.Environment, KeyRing.KeyEntries<string> | KeyRing.KeyRing<Crypto.Verifier> | undefined]
    >) {
      if (keys === undefined) continue
      if (isRing(keys)) rings[environment] = keys
      else pems[environment] = keys
    }
    if (Object.keys(pems).length > 0) {
      Object.assign(rings, yield* Callback.importPlatformKeys(options.crypto ?? WebCrypto, pems))
    }
    return yield* Callback.make({
      environment: options.environment,
      appKey: options.appKey,
      platformKeys: rings,
      replayGuard: options.replayGuard,
      maxBodyBytes: options.maxBodyBytes
    })
  })

const verifierClient = (verifier: Callback.Service): CallbackVerifierClient => {
  const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.provideService(effect, Callback.CallbackVerifier, verifier) as Effect.Effect<
      A,
      E,
      Exclude<R, Callback.CallbackVerifier>
    >
  const handler = (onEvent: OnEvent) => (event: Wire.CallbackEvent) =>
    Effect.tryPromise({ try: async () => onEvent(event), catch: (error) => error })
  return {
    verifyCallback: (input) => run(verifier.verify(input)),
    verifyCallbackRequest: (request) => run(provide(Callback.verifyRequest(request))),
    handleCallbackRequest: (request, onEvent) =>
      Effect.runPromise(provide(Callback.handleRequest(request, handler(onEvent)))),
    verifyNodeCallback: (req) => run(provide(Callback.verifyNodeRequest(req))),
    nodeCallbackHandler: (onEvent) => (req, res) =>
      Effect.runPromise(provide(Callback.handleNodeRequest(req, res, handler(onEvent))))
  }
}

/**
 * Makes a callback verifier for a service that only receives callbacks.
 *
 * Rejects with {@link ConfigurationError}: unknown environment, appKey not a UUID, no platform keys
 * for the environment, a bad or weak platform key.
 *
 * @example
 * ```ts
 * import { createCallbackVerifier } from "@pc/client/promise"
 *
 * const verifier = await createCallbackVerifier({
 *   environment: "production",
 *   appKey: process.env.PC_APP_KEY!,
 *   platformKeys: { production: { 1: process.env.PC_PLATFORM_KEY_V1! } }
 * })
 * export const POST = (request: Request) => verifier.handleCallbackRequest(request, async (event) => save(event))
 * ```
 */
export const createCallbackVerifier = async (options: CallbackVerifierOptions): Promise<CallbackVerifierClient> =>
  verifierClient(await run(makeVerifier(options)))

/**
 * The options of {@link createPaymentClient}: PEM strings (imported with `crypto`, WebCrypto by
 * default), or signers already imported in a ring.
 *
 * @example
 * ```ts
 * import type { PaymentClientOptions } from "@pc/client/promise"
 *
 * const options: PaymentClientOptions = {
 *   environment: "sandbox",
 *   baseUrl: "http://127.0.0.1:4010", // `pnpm mock`
 *   appKey: "7e57c0de-0000-4000-8000-000000000001", // the mock's test merchant
 *   privateKeys: { 1: privateKeyPem }
 * }
 * ```
 */
export interface PaymentClientOptions {
  readonly environment: Environment.Environment
  /** Scheme, host and port of the service. */
  readonly baseUrl: string
  /** Your merchant appKey for this environment. */
  readonly appKey: string
  /**
   * Imports the PEM keys; default `WebCrypto` (`@pc/crypto-web`), which runs on Node 20+, browsers,
   * Deno, Bun and workers. Pass `NodeCrypto` (`@pc/crypto-node`) to use `node:crypto` instead.
   */
  readonly crypto?: Crypto.CryptoProvider | undefined
  /** PEM private keys by version (`{ 1: pem }`); the highest signs unless `currentKeyVersion` says otherwise. */
  readonly privateKeys?: KeyRing.KeyEntries<string> | undefined
  readonly currentKeyVersion?: number | undefined
  /** Signers already imported, instead of `privateKeys`. */
  readonly keyRing?: KeyRing.KeyRing<Crypto.Signer> | undefined
  /** The time one attempt may take, in milliseconds (or an Effect duration); default 10 s. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Overrides of `PaymentClient.defaultRetryPolicy` (durations in milliseconds or as text). */
  readonly retry?: Partial<PaymentClient.RetryPolicy> | undefined
  /** The fetch to use; default the global `fetch`. */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Enables `verifyCallback` and the callback handlers. */
  readonly callbacks?: CallbackOptions | undefined
}

/**
 * The Promise client: create orders, verify callbacks.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * const client = await PaymentConnect.createPaymentClient(options)
 * const order = await client.createOrder({ orderId: "M-1001", amount: "10.00", currency: "USD" })
 * ```
 */
export interface PaymentConnectClient extends CallbackVerifierClient {
  readonly environment: Environment.Environment
  /** The key version that signs. */
  readonly keyVersion: number
  /**
   * Creates a payment order and returns `{ orderSn, outerOrder, h5Url }`. Retried as the policy
   * allows; safe because the orderId makes the call idempotent on the service.
   *
   * Throws {@link InvalidRequestError} (also before any network call), {@link SignatureRejectedError},
   * {@link DuplicateOrderError}, {@link RateLimitedError}, {@link ServerError}, {@link TransportError},
   * {@link TimeoutError}, {@link UnexpectedResponseError}, {@link ConfigurationError}.
   */
  createOrder(input: PaymentClient.CreateOrderInput): Promise<Wire.CreateOrderResult>
}

const configurationError = (option: string, message: string): ConfigurationError =>
  new ConfigurationError(new PaymentClientError.ConfigurationError({ message, reason: "InvalidOption", option }))

const callbacksNotConfigured = (): ConfigurationError =>
  configurationError(
    "callbacks",
    "callback verification is not configured: pass callbacks: { platformKeys } to createPaymentClient"
  )

/**
 * Makes the Promise client: checks the options and imports the keys once.
 *
 * Rejects with {@link ConfigurationError}: a bad option, a bad or weak key, a current key version
 * not in the ring, or bad platform keys.
 *
 * @example
 * ```ts
 * import { createPaymentClient } from "@pc/client/promise"
 *
 * const client = await createPaymentClient({
 *   environment: "sandbox",
 *   baseUrl: "http://127.0.0.1:4010", // `pnpm mock`
 *   appKey: "7e57c0de-0000-4000-8000-000000000001", // the mock's test merchant
 *   privateKeys: { 1: privateKeyPem } // crypto: WebCrypto by default
 * })
 * const { h5Url } = await client.createOrder({ orderId: "M-1001", amount: "10.00", currency: "USD" })
 * ```
 */
export const createPaymentClient = async (options: PaymentClientOptions): Promise<PaymentConnectClient> => {
  const http =
    options.fetch === undefined
      ? FetchHttpClient.layer
      : FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, options.fetch)))
  let keys: PaymentClient.KeyOptions
  if (options.keyRing !== undefined) keys = { keyRing: options.keyRing }
  else if (options.privateKeys !== undefined) {
    const entries: Iterable<readonly [number | string, string]> =
      Symbol.iterator in options.privateKeys
        ? (options.privateKeys as Iterable<readonly [number, string]>)
        : Object.entries(options.privateKeys as { readonly [version: number]: string })
    // Wrapped at once, so that the PEM text never appears in an inspected or logged option.
    const privateKeys = Array.from(entries, ([version, pem]) => {
      const n = typeof version === "number" ? version : /^[1-9][0-9]*$/.test(version) ? Number(version) : Number.NaN
      return [n, Redacted.make(pem)] as const
    })
    keys = { crypto: options.crypto ?? WebCrypto, privateKeys, currentKeyVersion: options.currentKeyVersion }
  } else {
    throw configurationError("privateKeys", "give privateKeys (PEM by version), or a keyRing of signers")
  }
  const service = await run(
    PaymentClient.make({
      environment: options.environment,
      baseUrl: options.baseUrl,
      appKey: options.appKey,
      timeout: options.timeout,
      retry: options.retry,
      ...keys
    }).pipe(Effect.provide(http))
  )
  const callbacks =
    options.callbacks === undefined
      ? undefined
      : verifierClient(
          await run(
            makeVerifier({
              ...options.callbacks,
              environment: options.environment,
              appKey: options.appKey,
              crypto: options.crypto ?? WebCrypto
            })
          )
        )
  return {
    environment: service.environment,
    keyVersion: service.keyRing.current,
    createOrder: (input) => run(service.createOrder(input)),
    verifyCallback: async (input) => {
      if (callbacks === undefined) throw callbacksNotConfigured()
      return callbacks.verifyCallback(input)
    },
    verifyCallbackRequest: async (request) => {
      if (callbacks === undefined) throw callbacksNotConfigured()
      return callbacks.verifyCallbackRequest(request)
    },
    handleCallbackRequest: async (request, onEvent) => {
      if (callbacks === undefined) throw callbacksNotConfigured()
      return callbacks.handleCallbackRequest(request, onEvent)
    },
    verifyNodeCallback: async (req) => {
      if (callbacks === undefined) throw callbacksNotConfigured()
      return callbacks.verifyNodeCallback(req)
    },
    nodeCallbackHandler: (onEvent) => {
      if (callbacks === undefined) throw callbacksNotConfigured()
      return callbacks.nodeCallbackHandler(onEvent)
    }
  }
}
