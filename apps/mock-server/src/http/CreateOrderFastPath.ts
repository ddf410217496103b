/**
 * The one hot route, `POST /openapi/v2/order/create`, served straight from Node's `request` event
 * instead of through the HttpApi router, its middleware and its response encoding: that fixed
 * cost per request was most of a signed create's CPU (issue 12's profile). The route stays declared
 * once in MockApi (OpenAPI, the typed client); the work (CreateOrderFlow), the failure answers
 * (`answerFailure`), the envelope and the request log and event (`finishRequest`) are the same
 * modules the HttpApi path runs, so both paths answer the same bytes. Only an exact origin-form
 * target is taken here; anything else (a query, an absolute-form target) goes the HttpApi way.
 */
import { HttpServerResponse } from "@effect/platform"
import * as Wire from "@pc/core/Wire"
import { Clock, Effect, FiberRef, HashMap, Runtime } from "effect"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { CreateOrderFlow } from "../routes/CreateOrderFlow.js"
import type { MockEventInput } from "../events/MockEvents.js"
import { answerFailure, finishRequest } from "./App.js"
import { checkDevAccess, type DevAccessPolicy } from "./DevAccess.js"
import { fromError, ok } from "./Envelope.js"

/** Serves a request when it is create-order's and says so; `false` leaves it to the HttpApi app. */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean

/** Writes an envelope response as the platform's Node server writes one (status, headers, body in one `end`). */
const write = (target: ServerResponse, answer: HttpServerResponse.HttpServerResponse): void => {
  if (target.writableEnded || target.destroyed) return
  target.writeHead(answer.status, answer.headers)
  target.end(answer.body._tag === "Uint8Array" ? answer.body.body : undefined)
}

/**
 * The create-order fast path over the CreateOrderFlow in context, run on the context's runtime
 * (its logger, its services). Never fails: every failure is answered as on the HttpApi path.
 *
 * @example
 * ```ts
 * const fastPath = yield* makeCreateOrderFastPath({ devAccess, publish: events.publish })
 * const server = withFastPath(createServer(), fastPath)
 * ```
 */
export const makeCreateOrderFastPath = (options: {
  readonly devAccess?: DevAccessPolicy
  /** Where the `request` event of each request goes (`/dev/events`). */
  readonly publish: (event: MockEventInput) => Effect.Effect<void>
}): Effect.Effect<FastPath, never, CreateOrderFlow> =>
  Effect.gen(function* () {
    const flow = yield* CreateOrderFlow
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const path = Wire.CREATE_ORDER_PATH

    // A chain of few steps rather than a generator: the flow's own steps are the ones that count.
    const serve = (request: IncomingMessage, response: ServerResponse, requestId: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (started) => {
        // Headers the flow puts on whatever the answer is (the sandbox's X-R-Signature-Check).
        const extra: Record<string, string> = {}
        const withHeaders = (headers: Readonly<Record<string, string>>) =>
          Effect.sync(() => void Object.assign(extra, headers))
        // Never refuses today (the route is not under /dev/), decided here as for every request anyway.
        const refused =
          options.devAccess === undefined
            ? undefined
            : checkDevAccess(options.devAccess, path, request.headers.authorization)
        const answered =
          refused !== undefined
            ? Effect.succeed(fromError(refused))
            : flow.create({ source: request, withHeaders }).pipe(
                Effect.map((result) => ok(result)),
                Effect.catchAllCause(answerFailure("POST", path, requestId))
              )
        return answered.pipe(
          Effect.flatMap((answer) =>
            finishRequest({ publish: options.publish, requestId, method: "POST", path, started, response: answer })
          ),
          Effect.map((finished) => write(response, HttpServerResponse.setHeaders(finished, extra)))
        )
      })

    // The fiber is this request's alone, so its log annotation is set on it for good: cheaper than
    // Effect.annotateLogs, which puts the previous value back when its effect ends.
    const annotated = (requestId: string, effect: Effect.Effect<void>) =>
      Effect.zipRight(
        FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set("requestId", requestId as unknown)),
        effect
      )

    return (request, response) => {
      if (request.method !== "POST" || request.url !== path) return false
      const requestId = randomUUID()
      runFork(annotated(requestId, serve(request, response, requestId)))
      return true
    }
  })

/**
 * Puts `fastPath` in front of the server's `request` listeners (the HttpApi app, ListenGate's
 * parking): a request it takes reaches none of them. Returns the same server.
 *
 * @example
 * ```ts
 * const server = withEnvelopeForClientErrors(withFastPath(createServer(), fastPath))
 * ```
 */
export const withFastPath = (server: Server, fastPath: FastPath): Server => {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event === "request" && fastPath(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
    return emit(event, ...args)
  }) as Server["emit"]
  return server
}
