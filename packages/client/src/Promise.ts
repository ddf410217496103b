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
import type * as CallbackHandler from "./CallbackHandler.js"
import { createPaymentClientOn, makeVerifier, run, verifierClient } from "./internal/promiseClient.js"
import type * as PaymentClient from "./PaymentClient.js"
import type * as ReplayGuard from "./ReplayGuard.js"

export {
  CallbackVerificationError,
  ConfigurationError,
  DuplicateOrderError,
  InvalidRequestError,
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
  /**
   * Default: an in-memory guard (`ReplayGuard.memory()`), made once with the client or verifier, so
   * create those once at startup; `false` turns replay protection off.
   */
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
   * {@link TimeoutError}, {@link UnexpectedResponseError}, {@link ConfigurationError}.
   */
  createOrder(input: PaymentClient.CreateOrderInput): Promise<Wire.CreateOrderResult>
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
