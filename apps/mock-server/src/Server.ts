/**
 * Composes the mock once: SQLite storage, the environment's platform keys, the test merchant,
 * orders, the callback dispatcher and the route table, served by Node's HTTP server.
 */
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Headers } from "@pc/core"
import { Cause, Clock, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { mkdirSync } from "node:fs"
import { randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { Duplex } from "node:stream"
import { dirname } from "node:path"
import { MerchantAuth } from "./auth/MerchantAuth.js"
import { Dispatcher } from "./callbacks/Dispatcher.js"
import { PlatformKeys } from "./callbacks/PlatformKeys.js"
import { MockConfig, type MockConfigShape, publicBaseUrl } from "./Config.js"
import { makeApp } from "./http/App.js"
import type { Route } from "./http/Router.js"
import { Orders, PublicUrl } from "./orders/Orders.js"
import { checkoutRoutes } from "./routes/Checkout.js"
import { createOrderRoute } from "./routes/CreateOrder.js"
import { devRoutes } from "./routes/Dev.js"
import { serviceRoutes } from "./routes/Service.js"
import { Store } from "./store/Store.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPublicKeyPem } from "./TestMerchant.js"

/** Storage: the SQLite file (its folder made if needed) or `:memory:`, migrated, bound to the environment. */
const storeLayer = (config: MockConfigShape) => {
  if (config.db !== ":memory:") mkdirSync(dirname(config.db), { recursive: true })
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
  return Layer.provideMerge(bootstrap, Store.layer).pipe(Layer.provide(SqliteClient.layer({ filename: config.db })))
}

/**
 * Requests that Node refuses before any handler runs (a malformed request line or header, a header
 * section over Node's limit) still get an envelope with a request id, not Node's bare answer.
 */
const withEnvelopeForClientErrors = (server: Server): Server =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy()
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW"
    const [status, reason, code, msg] = tooLarge
      ? [
          431,
          "Request Header Fields Too Large",
          "payloadTooLarge",
          "request headers are larger than the server accepts"
        ]
      : [400, "Bad Request", "paramError", `malformed HTTP request (${error.code ?? "parse error"})`]
    const body = JSON.stringify({ code, msg, data: null })
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `${Headers.REQUEST_ID.toLowerCase()}: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`
    )
  })

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
    Layer.provideMerge(Layer.succeed(MockConfig, config))
  )
  const app = Layer.unwrapEffect(
    Effect.gen(function* () {
      const url = yield* PublicUrl
      const api = yield* createOrderRoute
      const dev = yield* devRoutes
      const table: Array<Route<unknown>> = []
      const routes: ReadonlyArray<Route<Store | Orders | MerchantAuth | PlatformKeys | Dispatcher>> = [
        api,
        ...dev,
        ...checkoutRoutes(config.environment),
        ...serviceRoutes(() => table, config.environment, url)
      ]
      table.push(...routes)
      return HttpServer.serve(makeApp(routes))
    })
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
  readonly url: string
  readonly environment: MockConfigShape["environment"]
  readonly testMerchantAppKey: string
  readonly db: string
}

/** The whole server as a layer: it serves from when it is built until its scope closes. */
export const layer = (config: MockConfigShape) => serverLayer(config)

/**
 * Starts a mock in this process and resolves once it listens (tests, `pc mock`). `close` stops the
 * dispatcher, closes the server and the database.
 */
export const start = async (
  config: MockConfigShape,
  options: { readonly logLevel?: LogLevel.LogLevel } = {}
): Promise<Started & { readonly close: () => Promise<void> }> => {
  const logging = Layer.mergeAll(Logger.logFmt, Logger.minimumLogLevel(options.logLevel ?? LogLevel.Info))
  const runtime = ManagedRuntime.make(Layer.provideMerge(layer(config), logging))
  const exit = await runtime.runPromiseExit(PublicUrl)
  if (Exit.isFailure(exit)) {
    // Release what was built (the database, a bound socket) and say why in words: a failed
    // listen is a ServeError whose own message is only "An error has occurred".
    await runtime.dispose().catch(() => undefined)
    const error = Cause.squash(exit.cause)
    throw new Error(startFailure(error, config), { cause: error })
  }
  const url = exit.value
  return {
    url,
    environment: config.environment,
    testMerchantAppKey: TEST_MERCHANT_APP_KEY,
    db: config.db,
    close: () => runtime.dispose()
  }
}
