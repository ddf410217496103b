/**
 * One route table drives both the dispatcher and the OpenAPI document, so every route that answers
 * is documented and every documented route answers. Unknown paths get notFound, known paths with
 * another method methodNotAllowed (with `Allow`), each as an envelope.
 */
import type { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { SqlError } from "@effect/sql/SqlError"
import type { Effect, Schema } from "effect"
import { ApiError } from "./Envelope.js"

export type Method = "GET" | "POST" | "PUT"

/** How a route answers, for the OpenAPI document. */
export type Answer =
  | { readonly kind: "envelope"; readonly data?: Schema.Schema.Any }
  | { readonly kind: "html" }
  | { readonly kind: "json" }
  | { readonly kind: "redirect" }

export interface Route<R> {
  readonly method: Method
  /** Path with `:name` parameters, e.g. `/dev/orders/:orderSn`. */
  readonly path: string
  readonly summary: string
  readonly tag: "API" | "Developer menu" | "Checkout" | "Service"
  readonly description?: string
  /**
   * The JSON body it takes and reads itself, for the OpenAPI document. A route without one gets
   * any body sent read and dropped by the app (payloadTooLarge over the limit).
   */
  readonly body?: Schema.Schema.Any
  /** Query parameters it reads, for the OpenAPI document. */
  readonly query?: ReadonlyArray<{ readonly name: string; readonly description: string }>
  /** Request headers it reads, for the OpenAPI document. */
  readonly headers?: ReadonlyArray<{ readonly name: string; readonly required: boolean; readonly description: string }>
  readonly answer: Answer
  readonly handle: (
    params: Readonly<Record<string, string>>
    // A SqlError is a bug or a broken disk: the app answers internalError and logs it.
  ) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    ApiError | SqlError,
    R | HttpServerRequest.HttpServerRequest
  >
}

/** Declares a route (keeps the table's element type inferred). */
export const route = <R>(route: Route<R>): Route<R> => route

type Segment = { readonly literal: string } | { readonly param: string }

interface Compiled<R> {
  readonly route: Route<R>
  readonly segments: ReadonlyArray<Segment>
}

const compile = <R>(route: Route<R>): Compiled<R> => ({
  route,
  segments: route.path
    .split("/")
    .slice(1)
    .map((part) => (part.startsWith(":") ? { param: part.slice(1) } : { literal: part }))
})

const match = (segments: ReadonlyArray<Segment>, parts: ReadonlyArray<string>): Record<string, string> | undefined => {
  if (segments.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    const part = parts[i]!
    if ("literal" in segment) {
      if (segment.literal !== part) return undefined
    } else {
      if (part === "") return undefined
      try {
        params[segment.param] = decodeURIComponent(part)
      } catch {
        return undefined
      }
    }
  }
  return params
}

export type Resolution<R> =
  | { readonly _tag: "Found"; readonly route: Route<R>; readonly params: Readonly<Record<string, string>> }
  | { readonly _tag: "MethodNotAllowed"; readonly allow: ReadonlyArray<Method> }
  | { readonly _tag: "NotFound" }

/** Compiles a table into a resolver from method and path. */
export const makeResolver = <R>(routes: ReadonlyArray<Route<R>>) => {
  const compiled = routes.map(compile)
  return (method: string, pathname: string): Resolution<R> => {
    const parts = pathname.split("/").slice(1)
    const allow: Array<Method> = []
    for (const entry of compiled) {
      const params = match(entry.segments, parts)
      if (params === undefined) continue
      // HEAD is answered as GET would be; Node drops the body.
      if (entry.route.method === method || (method === "HEAD" && entry.route.method === "GET")) {
        return { _tag: "Found", route: entry.route, params }
      }
      allow.push(entry.route.method)
    }
    return allow.length > 0 ? { _tag: "MethodNotAllowed", allow } : { _tag: "NotFound" }
  }
}

export const methodNotAllowed = (method: string, path: string, allow: ReadonlyArray<Method>) =>
  new ApiError({
    code: "methodNotAllowed",
    msg: `method ${method} is not allowed on ${path}; use ${allow.join(", ")}`,
    headers: { allow: allow.join(", ") }
  })

export const notFoundRoute = (method: string, path: string) =>
  new ApiError({ code: "notFound", msg: `no route for ${method} ${path}` })
