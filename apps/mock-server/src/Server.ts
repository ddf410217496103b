/**
 * Composes the mock once: SQLite storage, the environment's platform keys, the test merchant,
 * orders, the callback dispatcher and the route table, served by Node's HTTP server.
 */
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Cause, Clock, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { createServer } from "node:http"
import { MerchantAuth } from "./auth/MerchantAuth.js"
import { Dispatcher } from "./callbacks/Dispatcher.js"
import { PlatformKeys } from "./callbacks/PlatformKeys.js"
import { check, listenUrl, MockConfig, type MockConfigShape, publicBaseUrl } from "./Config.js"
import { MockApi } from "./api/MockApi.js"
import { DevAccessLive } from "./auth/DevAccess.js"
import { MockEvents } from "./events/MockEvents.js"
import { DecodeFailureAsParamError, wrapApp } from "./http/App.js"
import { withEnvelopeForClientErrors } from "./http/ClientError.js"
import { Orders, PublicUrl } from "./orders/Orders.js"
import { CheckoutHandlers } from "./routes/Checkout.js"
import { CreateOrderHandlers } from "./routes/CreateOrder.js"
import { DevHandlers } from "./routes/Dev.js"
import { ServiceHandlers } from "./routes/ServiceRoutes.js"
import { Store } from "./store/Store.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPublicKeyPem } from "./TestMerchant.js"

/** Storage: the SQLite file (made 0600 if new, locked for this process) or `:memory:`, migrated, bound to the environment. */
const storeLayer = (config: MockConfigShape) => {
  const bootstrap = Layer.effectDiscard(
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.claimEnvironment(config.environment)
      yield* store.ensureMerchant({
        appKey: TEST_MERCHANT_APP_KEY,
        publicKeyPem: testMerchantPublicKeyPem(),
        nowMs: yield* Clock.currentTimeMillis
      })
    })
  )
  return Layer.provideMerge(bootstrap, Store.sqlite(config.db))
}

const serverLayer = (config: MockConfigShape) => {
  const http = NodeHttpServer.layer(() => withEnvelopeForClientErrors(createServer({ keepAliveTimeout: 5_000 })), {
    host: config.host,
    port: config.port
  })
  const publicUrl = Layer.effect(
    PublicUrl,
    Effect.map(HttpServer.HttpServer, (server) =>
      publicBaseUrl(config, server.address._tag === "TcpAddress" ? server.address.port : config.port)
    )
  )
  const services = Dispatcher.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(Orders.layer, PlatformKeys.layer, MerchantAuth.layer)),
    Layer.provideMerge(publicUrl),
    Layer.provideMerge(storeLayer(config)),
    Layer.provideMerge(Layer.mergeAll(Layer.succeed(MockConfig, config), MockEvents.layer))
  )
  const handlers = HttpApiBuilder.api(MockApi).pipe(
    Layer.provide([CreateOrderHandlers, DevHandlers, CheckoutHandlers, ServiceHandlers]),
    Layer.provide(DevAccessLive)
  )
  const app = Layer.unwrapEffect(
    Effect.gen(function* () {
      const app = yield* HttpApiBuilder.httpApp
      const events = yield* MockEvents
      return HttpServer.serve(wrapApp(app, { bodyLimitBytes: config.bodyLimitBytes, publish: events.publish }))
    })
  ).pipe(
    Layer.provide(DecodeFailureAsParamError),
    Layer.provide(handlers),
    Layer.provide(Layer.mergeAll(HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer))
  )
  return app.pipe(Layer.provideMerge(services), Layer.provideMerge(http))
}

/** Why a start failed, from the innermost meaningful messages of the error's causes. */
const startFailure = (error: unknown, config: MockConfigShape): string => {
  const messages: Array<string> = []
  let listen = false
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    listen ||= current.name.includes("ServeError") || (current as NodeJS.ErrnoException).syscall === "listen"
    const message = current.message.trim()
    if (message !== "" && message !== "An error has occurred" && !messages.includes(message)) messages.push(message)
    current = current.cause
  }
  const reason = messages.join(": ") || String(error)
  return listen ? `cannot listen on ${config.host}:${config.port}: ${reason}` : reason
}

/** The running mock's facts, printed when it is ready. */
export interface Started {
  /** The base of the URLs it hands out: the public URL, or the address it listens on. */
  readonly url: string
  /** The address it is bound to (`http://127.0.0.1:4010`), whatever the public URL says. */
  readonly listenUrl: string
  readonly environment: MockConfigShape["environment"]
  readonly testMerchantAppKey: string
  readonly db: string
}

/**
 * The whole server as a layer: it serves from when it is built until its scope closes. Throws
 * ConfigError for a configuration that {@link check} refuses.
 */
export const layer = (config: MockConfigShape) => serverLayer(check(config))

/**
 * Starts a mock in this process and resolves once it listens (tests, `pc mock`). `close` stops the
 * dispatcher, closes the server and the database. Rejects with ConfigError for a configuration
 * that {@link check} refuses, and with an Error saying why for anything else (a port in use,
 * another mock on the same database file).
 *
 * @example
 * ```ts
 * const mock = await start({ ...defaults, environment: "production", port: 0, db: ":memory:" })
 * await mock.close()
 * ```
 */
export const start = async (
  config: MockConfigShape,
  options: { readonly logLevel?: LogLevel.LogLevel } = {}
): Promise<Started & { readonly close: () => Promise<void> }> => {
  const checked = check(config)
  const logging = Layer.mergeAll(
    Logger.logFmt,
    Logger.minimumLogLevel(options.logLevel ?? LogLevel.Info),
    // No tracer is exported anywhere: the spans @effect/platform and @effect/sql would make per
    // request and per query are pure cost (about a tenth of a signed create).
    Layer.setTracerEnabled(false)
  )
  const runtime = ManagedRuntime.make(Layer.provideMerge(serverLayer(checked), logging))
  const exit = await runtime.runPromiseExit(
    Effect.all([PublicUrl, Effect.map(HttpServer.HttpServer, (server) => server.address)])
  )
  if (Exit.isFailure(exit)) {
    // Release what was built (the database, a bound socket) and say why in words: a failed
    // listen is a ServeError whose own message is only "An error has occurred".
    await runtime.dispose().catch(() => undefined)
    const error = Cause.squash(exit.cause)
    throw new Error(startFailure(error, checked), { cause: error })
  }
  const [url, address] = exit.value
  return {
    url,
    listenUrl: address._tag === "TcpAddress" ? listenUrl(checked, address.port) : url,
    environment: checked.environment,
    testMerchantAppKey: TEST_MERCHANT_APP_KEY,
    db: checked.db,
    close: () => runtime.dispose()
  }
}
