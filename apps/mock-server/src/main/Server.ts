/**
 * Composes the mock once: SQLite storage, the environment's platform keys, the test merchant,
 * orders, the callback dispatcher and the route table, served by Node's HTTP server.
 */
import * as Etag from "@effect/platform/Etag"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpPlatform from "@effect/platform-node/NodeHttpPlatform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Scope from "effect/Scope"
import { createServer } from "node:http"
import { createServer as createTcpServer } from "node:net"
import { MerchantAuth } from "../domain/auth/MerchantAuth.js"
import { Dispatcher } from "../callbacks/Dispatcher.js"
import { PlatformKeys } from "../callbacks/PlatformKeys.js"
import { check, listenUrl, MockConfig, type MockConfigShape, publicBaseUrl } from "../config/Config.js"
import { MockApi } from "../api/MockApi.js"
import { DevAccessLive } from "../handlers/DevAccessMiddleware.js"
import { MockEvents } from "../events/MockEvents.js"
import { sharedMockEvents } from "../events/SharedEvents.js"
import { DecodeFailureAsParamError, wrapApp } from "../server/App.js"
import { withEnvelopeForClientErrors } from "../server/ClientError.js"
import { type DevAccessPolicy, devAccessPolicy } from "../domain/auth/DevAccessPolicy.js"
import { makeCreateOrderFastPath, withFastPath } from "../server/CreateOrderFastPath.js"
import * as ListenGate from "../server/ListenGate.js"
import { withRequestGuard } from "../server/HostCheck.js"
import { batchedLogFmtLogger } from "../log/BatchedLogFmt.js"
import { logfmtLogger } from "../log/LogFmt.js"
import { Orders, PublicUrl } from "../domain/orders/Orders.js"
import { CheckoutHandlers } from "../handlers/Checkout.js"
import { CreateOrderHandlers } from "../handlers/CreateOrder.js"
import { CreateOrderFlow } from "../domain/orders/CreateOrderFlow.js"
import { DevHandlers } from "../handlers/Dev.js"
import { ClockHandlers } from "../handlers/Clock.js"
import { FaultsHandlers } from "../handlers/Faults.js"
import { Faults, makeFaults } from "../domain/Faults.js"
import { shareFaults } from "../domain/SharedFaults.js"
import { AuditHandlers } from "../handlers/Audit.js"
import { ServiceHandlers } from "../handlers/Service.js"
import { isPostgresUrl } from "../store/Database.js"
import { Store } from "../store/Store.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPublicKeyPem } from "./TestMerchant.js"
import { Self } from "../config/UrlRule.js"

/**
 * Storage: the SQLite file (made 0600 if new, locked for this process), `:memory:`, or a shared
 * PostgreSQL database; migrated. With it the event bus: on PostgreSQL the replicas share their
 * events (SharedEvents.ts), on SQLite the bus is this process's.
 */
const storageLayer = (config: MockConfigShape) =>
  isPostgresUrl(config.db)
    ? Layer.provideMerge(sharedMockEvents, Store.postgres(config.db))
    : Layer.merge(MockEvents.layer, Store.sqlite(config.db))

/** Binds the storage to the environment (a database of another one is refused) and seeds the test merchant. */
const bootstrap = (config: MockConfigShape) =>
  Effect.gen(function* () {
    const store = yield* Store
    yield* store.claimEnvironment(config.environment)
    yield* store.ensureMerchant({
      appKey: TEST_MERCHANT_APP_KEY,
      publicKeyPem: testMerchantPublicKeyPem(),
      nowMs: yield* Clock.currentTimeMillis
    })
  })

/**
 * The runtime's logging, then the configuration, the storage and the mock's services, made one after
 * another in one layer's scope (each service from its own `make`, in the order they need each
 * other), so they stop in the reverse order. As a tree of layers (merged, then provided to each
 * other) they were 60 of the 184 layers a start built, and Effect builds each layer through its
 * memo map (a lock, a deferred, scopes, finalizers: about a hundred steps of its run loop, on code
 * that V8 has not compiled yet at start). The logging's fiber refs, set first, hold for all that
 * is built after and for the runtime.
 */
const servicesLayer = (
  config: MockConfigShape & { readonly port: number },
  logging: Effect.Effect<void, never, Scope.Scope>
) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      yield* logging
      const publicUrl = publicBaseUrl(config, config.port)
      const given = Context.make(MockConfig, config).pipe(
        Context.add(Faults, makeFaults(config.faults)),
        Context.add(PublicUrl, publicUrl),
        Context.add(Self, { port: config.port, listenHost: config.host, publicUrl })
      )
      const stored = Context.merge(given, yield* Layer.build(storageLayer(config)))
      yield* Effect.provide(bootstrap(config), stored)
      yield* Effect.provide(shareFaults, stored)
      const withOrders = Context.add(stored, Orders, yield* Effect.provide(Orders.make, stored))
      const withKeys = Context.add(withOrders, PlatformKeys, yield* Effect.provide(PlatformKeys.make, withOrders))
      const withAuth = Context.add(withKeys, MerchantAuth, yield* Effect.provide(MerchantAuth.make, withKeys))
      const withFlow = Context.add(withAuth, CreateOrderFlow, yield* Effect.provide(CreateOrderFlow.make, withAuth))
      return Context.add(withFlow, Dispatcher, yield* Effect.provide(Dispatcher.make, withFlow))
    })
  )

/**
 * What the platform's router asks of an app, for file responses and multipart uploads (the mock has
 * neither). NodeHttpPlatform.layer gives the same in 11 layers, with its own ETag generator.
 */
const platformServices = Layer.effect(HttpPlatform.HttpPlatform, NodeHttpPlatform.make).pipe(
  Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, Etag.layerWeak))
)

/**
 * The whole mock for a known port. The order is the point: storage, services and the route table
 * are built first, and the Node server listens last, so no connection is accepted before the app
 * can answer it (a request that arrived during start-up used to be accepted and never answered).
 */
const serverLayer = (
  config: MockConfigShape & { readonly port: number },
  devAccess: DevAccessPolicy,
  createOrderFastPath: boolean,
  logging: Effect.Effect<void, never, Scope.Scope>
) => {
  const services = servicesLayer(config, logging)
  const handlers = HttpApiBuilder.api(MockApi).pipe(
    Layer.provide([
      CreateOrderHandlers,
      DevHandlers,
      AuditHandlers,
      ClockHandlers,
      FaultsHandlers,
      CheckoutHandlers,
      ServiceHandlers
    ])
  )
  const app = Layer.unwrapEffect(
    Effect.gen(function* () {
      const httpApp = yield* HttpApiBuilder.httpApp
      const events = yield* MockEvents
      // Create-order, the one hot route, skips the HttpApi stack (CreateOrderFastPath.ts).
      const fastPath = yield* makeCreateOrderFastPath({
        devAccess,
        bodyLimitBytes: config.bodyLimitBytes,
        publishNow: events.publishNow
      })
      // The server alone: NodeHttpServer.layer adds NodeContext (a terminal, a command executor,
      // workers) that the mock never uses, a tenth of the layers its start built.
      const http = NodeHttpServer.layerServer(
        () => {
          const server = createServer({ keepAliveTimeout: 5_000 })
          // A dashboard left open holds /dev/events, a stream that never ends by itself, and close
          // waits for every connection: Ctrl-C hung on "stopping the mock". Requests in flight get a
          // moment to finish, then what is still open is cut.
          const close = server.close.bind(server)
          server.close = (callback) => {
            close(callback)
            setTimeout(() => server.closeAllConnections(), 500).unref()
            return server
          }
          const guarded = withRequestGuard(createOrderFastPath ? withFastPath(server, fastPath) : server, {
            port: config.port,
            listenHost: config.host,
            publicUrl: publicBaseUrl(config, config.port)
          })
          return ListenGate.hold(withEnvelopeForClientErrors(guarded))
        },
        { host: config.host, port: config.port }
      )
      // Built before the server exists: listening is the last step of the layer returned here.
      return HttpServer.serve(
        wrapApp(httpApp, { bodyLimitBytes: config.bodyLimitBytes, devAccess, publishNow: events.publishNow })
      ).pipe(Layer.provideMerge(http))
    })
  ).pipe(
    Layer.provide([DecodeFailureAsParamError, handlers]),
    // What the route table, its middleware and the server ask for, none of it from the services.
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer, DevAccessLive, platformServices])
  )
  return app.pipe(Layer.provideMerge(services))
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
  /** Who may use the developer menu: the token it requires, and whether the mock made it. */
  readonly devAccess: DevAccessPolicy
}

/**
 * A port that is free on `host` now: the OS picks one for a probe that closes at once. The mock needs
 * its port before it listens (its public URL is built into the app), and listens last.
 */
const freePort = (host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createTcpServer()
    probe.once("error", reject)
    probe.listen({ host, port: 0, exclusive: true }, () => {
      const address = probe.address()
      probe.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))
      )
    })
  })

const isAddressInUse = (error: unknown): boolean => {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    if ((current as NodeJS.ErrnoException).code === "EADDRINUSE") return true
    current = current.cause
  }
  return false
}

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
  options: {
    readonly logLevel?: LogLevel.LogLevel
    /** Receives every log line (logfmt) instead of the console: tests scan them for secrets. */
    readonly logSink?: (line: string) => void
    /**
     * Serve create-order by its fast path (default true); `false` leaves it to the HttpApi app,
     * for the test that both paths answer alike.
     */
    readonly createOrderFastPath?: boolean
  } = {}
): Promise<Started & { readonly close: () => Promise<void> }> => {
  const checked = check(config)
  const sink = options.logSink
  // The runtime's logging and tracing, set first when the services are made (servicesLayer).
  const logging = Effect.suspend(() => {
    const logger = sink === undefined ? batchedLogFmtLogger() : Logger.map(logfmtLogger, (line) => sink(line))
    return Effect.all(
      [
        Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) =>
          HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), logger)
        ),
        Effect.locallyScoped(FiberRef.currentMinimumLogLevel, options.logLevel ?? LogLevel.Info),
        // No tracer is exported anywhere: the spans @effect/platform and @effect/sql would make per
        // request and per query are pure cost (about a tenth of a signed create).
        Effect.locallyScoped(FiberRef.currentTracerEnabled, false),
        // The same for the platform's HTTP tracer middleware, which still parsed each request's URL,
        // copied its headers for redaction and set an attribute per header on a span nobody reads.
        Effect.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)
      ],
      { discard: true }
    )
  })
  // Port 0 asks for any free port: one is picked before the build, and picked again in the rare case
  // that another process takes it between the probe and the listen.
  const devAccess = devAccessPolicy(checked)
  for (let attempt = 1; ; attempt++) {
    const port = checked.port === 0 ? await freePort(checked.host) : checked.port
    const runtime = ManagedRuntime.make(
      serverLayer({ ...checked, port }, devAccess, options.createOrderFastPath ?? true, logging)
    )
    const exit = await runtime.runPromiseExit(
      Effect.all([PublicUrl, Effect.map(HttpServer.HttpServer, (server) => server.address)]).pipe(
        // Listening now: the platform key's making no longer competes with the start for the CPU.
        Effect.tap(() => Effect.flatMap(PlatformKeys, (keys) => keys.prepare))
      )
    )
    if (Exit.isSuccess(exit)) return started(checked, devAccess, runtime, exit.value)
    // Release what was built (the database, a bound socket) and say why in words: a failed
    // listen is a ServeError whose own message is only "An error has occurred".
    await runtime.dispose().catch(() => undefined)
    const error = Cause.squash(exit.cause)
    if (checked.port === 0 && attempt < 3 && isAddressInUse(error)) continue
    throw new Error(startFailure(error, checked), { cause: error })
  }
}

const started = (
  checked: MockConfigShape,
  devAccess: DevAccessPolicy,
  runtime: { readonly dispose: () => Promise<void> },
  [url, address]: readonly [string, HttpServer.Address]
): Started & { readonly close: () => Promise<void> } => {
  return {
    url,
    listenUrl: address._tag === "TcpAddress" ? listenUrl(checked, address.port) : url,
    environment: checked.environment,
    testMerchantAppKey: TEST_MERCHANT_APP_KEY,
    db: checked.db,
    devAccess,
    close: () => runtime.dispose()
  }
}
