/**
 * What wraps the `HttpApiBuilder` app, in one place, for what `HttpApi` cannot say: a request id
 * on every response and log line, notFound and methodNotAllowed (with `Allow`) as envelopes (the
 * router only knows "no route"), any body sent to a route that takes none read within the limit
 * (payloadTooLarge over it) and dropped, framework decode failures as paramError naming the field,
 * and a bug as internalError 500 logged with the request id. HEAD is answered as GET by the router.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Headers } from "@pc/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { MockApi } from "../api/MockApi.js"
import { describeDefect } from "../log/LogText.js"
import { loggerOf, recordRequest } from "../log/RequestLog.js"
import { type MockEventInput, signatureNote } from "../events/MockEvents.js"
import { rawBody } from "./Body.js"
import { checkDevAccess, type DevAccessPolicy } from "../domain/auth/DevAccessPolicy.js"
import { envelope, fromError } from "../api/Envelope.js"
import { ApiError } from "../domain/ApiError.js"
import { ParamError } from "../api/WireErrors.js"
import { DatabaseOutage, isUnreachable, RETRY_AFTER_SECONDS } from "../store/Outage.js"

/** The log annotation that carries a request's id ({@link wrapApp}, {@link currentRequestId}). */
const REQUEST_ID = "requestId"

const REQUEST_ID_HEADER = Headers.REQUEST_ID.toLowerCase()

/** The path of a request target: origin form (`/a?b`) or absolute form (`http://host/a?b`, RFC 9112 3.2.2). */
export const pathOf = (target: string): string => {
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

interface RouteEntry {
  readonly method: string
  readonly pattern: RegExp
  readonly takesBody: boolean
}

/** Every route of the API definition, as a method and a path pattern (`:name` is one non-empty segment). */
const routeTable = (): ReadonlyArray<RouteEntry> => {
  const routes: Array<RouteEntry> = []
  HttpApi.reflect(MockApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const source = endpoint.path
        .split("/")
        .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/")
      routes.push({
        method: endpoint.method,
        pattern: new RegExp(`^${source}$`),
        takesBody: Option.isSome(endpoint.payloadSchema)
      })
    }
  })
  return routes
}

type Resolution =
  | { readonly _tag: "Found"; readonly takesBody: boolean }
  | { readonly _tag: "MethodNotAllowed"; readonly allow: ReadonlyArray<string> }
  | { readonly _tag: "NotFound" }

const makeResolver =
  (routes: ReadonlyArray<RouteEntry>) =>
  (method: string, path: string): Resolution => {
    const allow: Array<string> = []
    for (const route of routes) {
      if (!route.pattern.test(path)) continue
      if (route.method === method || (method === "HEAD" && route.method === "GET")) {
        return { _tag: "Found", takesBody: route.takesBody }
      }
      allow.push(route.method)
    }
    return allow.length > 0 ? { _tag: "MethodNotAllowed", allow } : { _tag: "NotFound" }
  }

const internalError = (requestId: string) =>
  envelope("internalError", `internal error; quote request id ${requestId} when reporting it`, null)

const serviceUnavailable = (requestId: string) =>
  envelope(
    "serviceUnavailable",
    `the database cannot be reached; try again in ${RETRY_AFTER_SECONDS} s (request id ${requestId})`,
    null,
    { "retry-after": String(RETRY_AFTER_SECONDS) }
  )

const notFoundRoute = (method: string, path: string) =>
  fromError(new ApiError({ code: "notFound", msg: `no route for ${method} ${path}` }))

/**
 * The framework's own decode failures (a path or query parameter that its Schema refuses) as the
 * contract's paramError naming the field, before the API's error schema encodes them.
 */
export const DecodeFailureAsParamError = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(app, (cause) => {
    const failure: Option.Option<unknown> = Cause.failureOption(cause)
    if (Option.isNone(failure) || !(failure.value instanceof HttpApiError.HttpApiDecodeError))
      return Effect.failCause(cause)
    const [issue] = failure.value.issues
    const field = issue?.path.map(String).join(".") || "request"
    // Typed `never` by HttpApiBuilder.middleware, yet a failure here is what the API's error
    // schema encodes next, and ParamError is one of the API's declared errors.
    return Effect.fail(
      new ParamError({ msg: `${field}: ${issue?.message ?? "invalid"}` })
    ) as unknown as Effect.Effect<never>
  })
)

/**
 * The answer to a request whose handling failed with `cause`: an ApiError's envelope, notFound for
 * the router's "no route", and anything else internalError 500, logged with the request id. A
 * client that went away (an interrupted fiber) is not answered: the interruption goes on. The app
 * below and the create-order fast path (CreateOrderFastPath.ts) both answer failures with it.
 *
 * @example
 * ```ts
 * handled.pipe(Effect.catchAllCause(answerFailure("POST", "/openapi/v2/order/create", requestId)))
 * ```
 */
export const answerFailure =
  (method: string, path: string, requestId: string) =>
  (cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
    // The client went away (a closed socket interrupts the request's fiber): nothing to answer
    // and nothing crashed, so the interruption goes on as it is.
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) {
      const error = failure.value as { readonly _tag?: string }
      if (error._tag === "ApiError") return Effect.succeed(fromError(failure.value as ApiError))
      // The router's "no route": the resolver found one, so only a segment the router refuses
      // (an undecodable escape) lands here.
      if (error._tag === "RouteNotFound") return Effect.succeed(notFoundRoute(method, path))
    }
    const squashed = Cause.squash(cause)
    const storage =
      typeof squashed === "object" && squashed !== null && (squashed as { _tag?: string })._tag === "SqlError"
    // The database away (a restart) is no bug: serviceUnavailable with Retry-After, logged once per
    // outage by DatabaseOutage (where the store has one), not once per request.
    if (storage && isUnreachable(squashed)) {
      return Effect.serviceOption(DatabaseOutage).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () =>
              Effect.logWarning("database unreachable").pipe(Effect.annotateLogs({ defect: describeDefect(squashed) })),
            onSome: (outage) => outage.noteUnreachable(squashed)
          })
        ),
        Effect.as(serviceUnavailable(requestId))
      )
    }
    return Effect.as(
      Effect.logError(storage ? "storage failed" : "request crashed").pipe(
        Effect.annotateLogs({ defect: describeDefect(squashed) })
      ),
      internalError(requestId)
    )
  }

/**
 * What ends every request the HttpApi app serves: its log line and `request` event (with the
 * signature check's note, for create-order), recorded as the fast path records them
 * (log/RequestLog.ts), and the `X-Request-Id` header on its response.
 *
 * @example
 * ```ts
 * const answered = yield* finishRequest({ publishNow, requestId, method, path, started, response })
 * ```
 */
export const finishRequest = (options: {
  readonly publishNow: (event: MockEventInput) => void
  readonly requestId: string
  readonly method: string
  readonly path: string
  /** When the request arrived, from `Clock.currentTimeMillis`. */
  readonly started: number
  readonly response: HttpServerResponse.HttpServerResponse
}): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.flatMap(FiberRef.getAndSet(signatureNote, undefined), (signature) =>
    Effect.withFiberRuntime((fiber) => {
      const { requestId, response } = options
      const now = Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis()
      recordRequest(loggerOf(fiber.getFiberRefs()), options.publishNow, {
        requestId,
        method: options.method,
        path: options.path,
        status: response.status,
        durationMs: now - options.started,
        signature
      })
      return Effect.succeed(HttpServerResponse.setHeader(response, REQUEST_ID_HEADER, requestId))
    })
  )

/**
 * The served app: `app` (the `HttpApiBuilder` app of {@link MockApi}) inside the envelope rules above.
 *
 * @example
 * ```ts
 * HttpServer.serve(wrapApp(yield* HttpApiBuilder.httpApp, { bodyLimitBytes: 65536 }))
 * ```
 */
export const wrapApp = <R>(
  app: HttpApp.Default<never, R>,
  options: {
    readonly bodyLimitBytes: number
    readonly devAccess?: DevAccessPolicy
    /** Where the `request` event of each request goes (`/dev/events`). */
    readonly publishNow: (event: MockEventInput) => void
  }
): HttpApp.Default<never, R> => {
  const resolve = makeResolver(routeTable())
  const dropBody = Effect.asVoid(rawBody(options.bodyLimitBytes))
  const handle = (requestId: string) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = yield* Clock.currentTimeMillis
      const path = pathOf(request.url)
      const resolution = resolve(request.method, path)
      // The developer token (CONTRACT.md "Exposure") is decided before routing, by path, so that an
      // unknown /dev route does not tell an unauthenticated caller which routes exist.
      const refused =
        options.devAccess === undefined
          ? undefined
          : checkDevAccess(options.devAccess, path, request.headers.authorization)
      const handled: Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        ApiError,
        R | HttpServerRequest.HttpServerRequest
      > =
        refused !== undefined
          ? Effect.succeed(fromError(refused))
          : resolution._tag === "Found"
            ? resolution.takesBody
              ? app
              : Effect.zipRight(dropBody, app)
            : Effect.succeed(
                resolution._tag === "MethodNotAllowed"
                  ? fromError(
                      new ApiError({
                        code: "methodNotAllowed",
                        msg: `method ${request.method} is not allowed on ${path}; use ${resolution.allow.join(", ")}`,
                        headers: { allow: resolution.allow.join(", ") }
                      })
                    )
                  : notFoundRoute(request.method, path)
              )
      const response = yield* handled.pipe(Effect.catchAllCause(answerFailure(request.method, path, requestId)))
      return yield* finishRequest({
        publishNow: options.publishNow,
        requestId,
        method: request.method,
        path,
        started,
        response
      })
    }).pipe(Effect.annotateLogs(REQUEST_ID, requestId))
  return Effect.suspend(() => handle(randomUUID()))
}

/**
 * The id of the request this fiber serves (the one its log lines carry, set by {@link wrapApp}), for
 * work that logs without a fiber of its own; `undefined` outside a request.
 *
 * @example
 * ```ts
 * const requestId = yield* currentRequestId
 * ```
 */
export const currentRequestId: Effect.Effect<string | undefined> = Effect.map(
  FiberRef.get(FiberRef.currentLogAnnotations),
  (annotations) => {
    const id = Option.getOrUndefined(HashMap.get(annotations, REQUEST_ID))
    return typeof id === "string" ? id : undefined
  }
)
