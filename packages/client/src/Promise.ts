/**
 * The client for merchants who do not use Effect: `createPaymentClient` with `createOrder` and
 * callback verification as plain Promises, throwing `PaymentConnectError` subclasses (with a
 * stable `code`) so that `instanceof` and `switch (error.code)` work. Sends with the global `fetch`
 * (browsers, Deno, Bun, workers); on Node, `@pc/client/promise` resolves to `PromiseNode` instead,
 * which sends with `node:http`. Keys are imported with WebCrypto (`@pc/crypto-web`) unless told
 * otherwise.
 *
 * Also published as the subpath `@pc/client/promise`:
 * `import { createPaymentClient, SignatureRejectedError } from "@pc/client/promise"`.
 *
 * @since 0.1.0
 */
import type { Crypto, Environment, KeyRing } from "@pc/core"
import type * as Wire from "@pc/core/Wire"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as Duration from "effect/Duration"
import type * as Callback from "./Callback.js"
import * as CallbackHandler from "./CallbackHandler.js"
import { createPaymentClientOn, makeVerifier, run, verifierClient } from "./internal/promiseClient.js"
import type * as PaymentClient from "./PaymentClient.js"
import type * as ReplayGuardModule from "./ReplayGuard.js"
import { CallbackVerificationError as PromiseCallbackVerificationError } from "./PaymentConnectError.js"
import { CallbackVerificationError as EffectCallbackVerificationError } from "./CallbackVerificationError.js"

import * as PlatformKeySource from "./PlatformKeySource.js"

export * as ReplayGuard from "./ReplayGuard.js"

/**
 * A platform key source for a mock server: looks versions up in its `GET /dev/platform-keys`
 * (`devToken` when the mock requires one). Give it as `callbacks.platformKeySource`.
 *
 * @example
 * ```ts
 * import { createCallbackVerifier, fetchMockPlatformKey } from "@pc/client/promise"
 *
 * const verifier = await createCallbackVerifier({
 *   environment: "sandbox",
 *   appKey,
 *   platformKeySource: fetchMockPlatformKey("http://127.0.0.1:4010")
 * })
 * ```
 */
export const fetchMockPlatformKey = (
  baseUrl: string,
  options: { readonly devToken?: string | undefined } = {}
): PlatformKeySource.FetchPlatformKey => PlatformKeySource.fetchFromMock(baseUrl, options)

export {
  type AnyPaymentConnectError,
  CallbackVerificationError,
  ConfigurationError,
  DuplicateOrderError,
  InvalidRequestError,
  isPaymentConnectError,
  PaymentConnectError,
  type PaymentConnectErrorCode,
  RateLimitedError,
  ServerError,
  SignatureRejectedError,
  TimeoutError,
  TransportError,
  UnexpectedResponseError
} from "./PaymentConnectError.js"

/**
 * What `createOrder` takes: your orderId, the amount (decimal string or number) and the currency.
 *
 * @example
 * ```ts
 * import type * as PaymentConnect from "@pc/client/promise"
 *
 * const input: PaymentConnect.CreateOrderInput = { orderId: "shop-prod:1001", amount: "10.00", currency: "USD" }
 * ```
 */
export type CreateOrderInput = PaymentClient.CreateOrderInput

/**
 * Per-call settings of `createOrder`: `timeout` bounds the whole call (retries and `Retry-After`
 * waits included; default 10 s), `signal` aborts it.
 *
 * @example
 * ```ts
 * import type * as PaymentConnect from "@pc/client/promise"
 *
 * const call: PaymentConnect.CreateOrderOptions = { timeout: 4_000, signal: request.signal }
 * ```
 */
export type CreateOrderOptions = PaymentClient.CallOptions

/**
 * What `createOrder` returns: `{ orderSn, outerOrder, h5Url }`.
 *
 * @example
 * ```ts
 * import type * as PaymentConnect from "@pc/client/promise"
 *
 * const redirectTo = (order: PaymentConnect.CreateOrderResult) => order.h5Url
 * ```
 */
export type CreateOrderResult = Wire.CreateOrderResult

/**
 * A verified callback: `eventId`, `eventType` (`order.paid`, `order.failed`, `order.expired`), the
 * order's `orderSn`, your `outerOrder`, `amount`, `currency`, `status`, and when it happened.
 *
 * @example
 * ```ts
 * import type * as PaymentConnect from "@pc/client/promise"
 *
 * const isPaid = (event: PaymentConnect.CallbackEvent) => event.eventType === "order.paid"
 * ```
 */
export type CallbackEvent = Wire.CallbackEvent

/**
 * The headers and raw body of a callback, for `verifyCallback`.
 *
 * @example
 * ```ts
 * import type * as PaymentConnect from "@pc/client/promise"
 *
 * const input: PaymentConnect.CallbackInput = { headers: req.headers, body: rawBody }
 * ```
 */
export type CallbackInput = Callback.CallbackInput

/**
 * Overrides of the retry policy (attempts, backoff, the call's `deadline`).
 *
 * @example
 * ```ts
 * import type * as PaymentConnect from "@pc/client/promise"
 *
 * const retry: PaymentConnect.RetryOptions = { maxAttempts: 2, deadline: 5_000 }
 * ```
 */
export type RetryOptions = PaymentClient.RetryOptions

/**
 * The answer a callback endpoint gives for an error thrown while verifying or handling a callback:
 * 401 `signError` for header, key, signature, timestamp and replay refusals; 400 `paramError` for a
 * body that is not an event or is too large; 500 `internalError` for receiver problems (body
 * unavailable, replay guard down) and for any other error (your handler failed), which the service
 * delivers again later. `body` is the envelope-like JSON to send with it.
 *
 * @example
 * ```ts
 * import * as PaymentConnect from "@pc/client/promise"
 *
 * app.post("/callbacks", express.raw({ type: "application/json" }), async (req, res) => {
 *   try {
 *     await onEvent(await verifier.verifyNodeCallback(req))
 *     res.json({ code: "SUCCESS", msg: null, data: null })
 *   } catch (error) {
 *     const answer = PaymentConnect.answerFor(error)
 *     res.status(answer.status).type("application/json").send(answer.body)
 *   }
 * })
 * ```
 */
export const answerFor = (error: unknown): { readonly status: 400 | 401 | 500; readonly body: string } => {
  const answer =
    error instanceof PromiseCallbackVerificationError || error instanceof EffectCallbackVerificationError
      ? CallbackHandler.answerOf(error)
      : CallbackHandler.answerOf("HandlerFailed")
  // A refusal never answers 200: only a processed callback does.
  return { status: answer.status === 200 ? 500 : answer.status, body: answer.body }
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
  /** The platform keys held now, by environment; may be left out when `platformKeySource` is given. */
  readonly platformKeys?: {
    readonly [E in Environment.Environment]?: KeyRing.KeyEntries<string> | KeyRing.KeyRing<Crypto.Verifier> | undefined
  }
  /**
   * Where a key version not in `platformKeys` is looked up: a function of environment and version
   * returning the PEM (or `undefined`), such as {@link fetchMockPlatformKey} for the mock, or your
   * secrets store in production. Imported keys are cached; an unknown version is looked up again at
   * most every 10 s. A platform key rotation then refuses no callback.
   */
  readonly platformKeySource?: PlatformKeySource.FetchPlatformKey | undefined
  /**
   * Default: an in-memory guard (`ReplayGuard.memory()`), made once with the client or verifier, so
   * create those once at startup; `false` turns replay protection off.
   */
  readonly replayGuard?: ReplayGuardModule.ReplayGuard | false | undefined
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
   * Verifies a Fetch `Request` (reads `request.body`, at most `maxBodyBytes`).
   * Throws {@link CallbackVerificationError}.
   */
  verifyCallbackRequest(request: CallbackHandler.FetchRequest): Promise<Wire.CallbackEvent>
  /** Verifies, runs `onEvent`, and answers 200 / 400 / 401 / 500 with an envelope-like JSON `Response`. Never throws. */
  handleCallbackRequest(request: CallbackHandler.FetchRequest, onEvent: OnEvent): Promise<Response>
  /**
   * Verifies a Node `IncomingMessage` / Express `Request`, reading the raw body from the stream
   * (or `req.body` when `express.raw()` made it a Buffer).
   * Throws {@link CallbackVerificationError} (`BodyAlreadyParsed` when `express.json()` ran first).
   */
  verifyNodeCallback(req: CallbackHandler.NodeRequest): Promise<Wire.CallbackEvent>
  /** A Node `http` / Express handler: verifies, runs `onEvent`, writes 200 / 400 / 401 / 500. Never throws. */
  nodeCallbackHandler(
    onEvent: OnEvent
  ): (req: CallbackHandler.NodeRequest, res: CallbackHandler.NodeResponse) => Promise<void>
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
  readonly retry?: PaymentClient.RetryOptions | undefined
  /**
   * Sends with this fetch. Default: `node:http` on Node (`@pc/client/promise` under the `node`
   * export condition), the global `fetch` elsewhere.
   */
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
   * {@link TimeoutError}, {@link UnexpectedResponseError}, {@link ConfigurationError}; rejects
   * with `options.signal.reason` when the signal aborts. `options.timeout` bounds the whole call,
   * retries and `Retry-After` waits included (default 10 s, the policy's `deadline`).
   */
  createOrder(input: PaymentClient.CreateOrderInput, options?: CreateOrderOptions): Promise<Wire.CreateOrderResult>
}

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
export const createPaymentClient: (options: PaymentClientOptions) => Promise<PaymentConnectClient> =
  createPaymentClientOn(FetchHttpClient.layer)
