/**
 * The HTTP application: resolves a request against the route table, gives it a request id (on the
 * response and on every log line about it), turns every failure into its envelope, and logs one
 * line per request. A SqlError or a defect is a bug: internalError 500, logged with the request id.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Headers } from "@pc/core"
import { Clock, Effect } from "effect"
import { randomUUID } from "node:crypto"
import { capped, describeDefect } from "../log/LogText.js"
import { rawBody } from "./Body.js"
import { checkDevAccess, type DevAccessPolicy } from "./DevAccess.js"
import { envelope, fromError } from "./Envelope.js"
import { makeResolver, methodNotAllowed, notFoundRoute, type Route } from "./Router.js"

const REQUEST_ID_HEADER = Headers.REQUEST_ID.toLowerCase()

/** The path of a request target: origin form (`/a?b`) or absolute form (`http://host/a?b`, RFC 9112 3.2.2). */
const pathOf = (target: string): string => {
  if (!target.startsWith("/")) {
    try {
      return new URL(target).pathname
    } catch {
      return target
    }
  }
  const queryAt = target.indexOf("?")
  return queryAt === -1 ? target : target.slice(0, queryAt)
}

const internalError = (requestId: string) =>
  envelope("internalError", `internal error; quote request id ${requestId} when reporting it`, null)

/**
 * The app of a route table. Routes that declare no body still get at most `bodyLimitBytes` of one
 * (read and dropped before they run): a larger body is payloadTooLarge there too.
 */
export const makeApp = <R>(
  routes: ReadonlyArray<Route<R>>,
  options: { readonly bodyLimitBytes: number; readonly devAccess?: DevAccessPolicy }
) => {
  const resolve = makeResolver(routes)
  const dropBody = Effect.asVoid(rawBody(options.bodyLimitBytes))
  const handle = (requestId: string) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = yield* Clock.currentTimeMillis
      const path = pathOf(request.url)
      const resolution = resolve(request.method, path)
      const refused =
        options.devAccess === undefined
          ? undefined
          : checkDevAccess(options.devAccess, path, request.headers.authorization)
      const handled =
        refused !== undefined
          ? Effect.fail(refused)
          : resolution._tag === "Found"
            ? resolution.route.body === undefined
              ? Effect.zipRight(dropBody, resolution.route.handle(resolution.params))
              : resolution.route.handle(resolution.params)
            : Effect.fail(
                resolution._tag === "MethodNotAllowed"
                  ? methodNotAllowed(request.method, path, resolution.allow)
                  : notFoundRoute(request.method, path)
              )
      const response = yield* handled.pipe(
        Effect.catchTags({
          ApiError: (error) => Effect.succeed(fromError(error)),
          SqlError: (error) =>
            Effect.as(
              Effect.logError("storage failed").pipe(Effect.annotateLogs({ error: describeDefect(error) })),
              internalError(requestId)
            )
        }),
        Effect.catchAllDefect((defect) =>
          Effect.as(
            Effect.logError("request crashed").pipe(Effect.annotateLogs({ defect: describeDefect(defect) })),
            internalError(requestId)
          )
        )
      )
      yield* Effect.logInfo("request").pipe(
        Effect.annotateLogs({
          method: capped(request.method),
          path: capped(path),
          status: response.status,
          durationMs: (yield* Clock.currentTimeMillis) - started
        })
      )
      return HttpServerResponse.setHeader(response, REQUEST_ID_HEADER, requestId)
    }).pipe(Effect.annotateLogs({ requestId }))
  return Effect.suspend(() => handle(randomUUID()))
}
