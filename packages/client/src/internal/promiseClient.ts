// The Promise facade's machinery, shared by its two entry points: `Promise` (fetch) and
// `PromiseNode` (node:http by default). The public types and their documentation live in `Promise`.
import type { Crypto, Environment, KeyRing } from "@pc/core"
import type * as Wire from "@pc/core/Wire"
import { WebCrypto } from "@pc/crypto-web"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Callback from "../Callback.js"
import * as CallbackHandler from "../CallbackHandler.js"
import * as PaymentClient from "../PaymentClient.js"
import * as PaymentClientError from "../PaymentClientError.js"
import type {
  CallbackVerifierClient,
  CallbackVerifierOptions,
  OnEvent,
  PaymentClientOptions,
  PaymentConnectClient
} from "../Promise.js"
import * as PlatformKeySource from "../PlatformKeySource.js"
import { keyEntries } from "./keys.js"
import { ConfigurationError } from "../PaymentConnectError.js"
import { toPromiseError } from "./toPromiseError.js"

export const run = async <A>(
  effect: Effect.Effect<A, PaymentClientError.PaymentClientError | Callback.CallbackVerificationError>
): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) throw toPromiseError(failure.value)
  throw Cause.squash(exit.cause)
}

export const isRing = (value: unknown): value is KeyRing.KeyRing<Crypto.Verifier> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { get?: unknown }).get === "function" &&
  Array.isArray((value as { versions?: unknown }).versions)

export const makeVerifier = (
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
      platformKeySource:
        options.platformKeySource === undefined
          ? undefined
          : PlatformKeySource.make(options.platformKeySource, { crypto: options.crypto ?? WebCrypto }),
      replayGuard: options.replayGuard,
      maxBodyBytes: options.maxBodyBytes
    })
  })

export const verifierClient = (verifier: Callback.Service): CallbackVerifierClient => {
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
    verifyCallbackRequest: (request) => run(provide(CallbackHandler.verifyRequest(request))),
    handleCallbackRequest: (request, onEvent) =>
      Effect.runPromise(provide(CallbackHandler.handleRequest(request, handler(onEvent)))),
    verifyNodeCallback: (req) => run(provide(CallbackHandler.verifyNodeRequest(req))),
    nodeCallbackHandler: (onEvent) => (req, res) =>
      Effect.runPromise(provide(CallbackHandler.handleNodeRequest(req, res, handler(onEvent))))
  }
}

const configurationError = (option: string, message: string): ConfigurationError =>
  new ConfigurationError(new PaymentClientError.ConfigurationError({ message, reason: "InvalidOption", option }))

const callbacksNotConfigured = (): ConfigurationError =>
  configurationError(
    "callbacks",
    "callback verification is not configured: pass callbacks: { platformKeys } to createPaymentClient"
  )

export const createPaymentClientOn =
  (defaultHttp: Layer.Layer<HttpClient.HttpClient>) =>
  async (options: PaymentClientOptions): Promise<PaymentConnectClient> => {
    const http =
      options.fetch === undefined
        ? defaultHttp
        : FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, options.fetch)))
    let keys: PaymentClient.KeyOptions
    if (options.keyRing !== undefined) keys = { keyRing: options.keyRing }
    else if (options.privateKeys !== undefined) {
      const entries = keyEntries(options.privateKeys, "privateKeys")
      if (Either.isLeft(entries)) throw new ConfigurationError(entries.left)
      // Wrapped at once, so that the PEM text never appears in an inspected or logged option.
      const privateKeys = entries.right.map(([version, pem]) => [version, Redacted.make(pem)] as const)
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
      createOrder: async (input, call) => {
        try {
          return await run(service.createOrder(input, call))
        } catch (error) {
          // An aborted call rejects as fetch does, with the signal's reason.
          if (call?.signal?.aborted === true) throw call.signal.reason
          throw error
        }
      },
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
