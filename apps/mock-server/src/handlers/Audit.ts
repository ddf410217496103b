/**
 * `POST /dev/merchants/{appKey}/audit`: runs the callback endpoint audit (callbacks/Audit.ts) and
 * answers its report. A group of its own, so the developer menu's handlers stay as they are.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import { AuditRequest } from "../api/AuditSchemas.js"
import { MockApi } from "../api/MockApi.js"
import * as S from "../api/Schemas.js"
import { audit } from "../callbacks/Audit.js"
import { MockConfig } from "../config/Config.js"
import { jsonObjectBody } from "../server/Body.js"
import { decodeBody } from "../domain/DecodeBody.js"
import { served } from "./Served.js"
import { Unauthorized } from "../api/WireErrors.js"

/**
 * A web page the developer visits must not start an audit (CONTRACT.md "Running the mock": a
 * cross-site request to the developer menu is refused): an audit sends requests to a URL of the
 * caller's choosing. A request with an `Origin` other than the mock's own (or `Sec-Fetch-Site`
 * other than same-origin or none) is refused; programs on the machine send neither.
 */
const notCrossSite = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
  const origin = request.headers.origin
  const site = request.headers["sec-fetch-site"]
  let sameOrigin = true
  if (origin !== undefined) {
    try {
      sameOrigin = new URL(origin).host === request.headers.host
    } catch {
      sameOrigin = false
    }
  }
  if (site !== undefined && site !== "same-origin" && site !== "none") sameOrigin = false
  return sameOrigin
    ? Effect.void
    : Effect.fail(new Unauthorized({ msg: "a cross-site request cannot start an audit: use the dashboard or pc" }))
})

/** The audit's handler, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const AuditHandlers = HttpApiBuilder.group(MockApi, "audit", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const context = yield* Effect.context<Effect.Effect.Context<ReturnType<typeof audit>>>()
    return handlers.handleRaw("auditEndpoint", ({ path }) =>
      Effect.zipRight(
        notCrossSite,
        served(
          Effect.gen(function* () {
            const input = yield* Effect.flatMap(jsonObjectBody(config.bodyLimitBytes), decodeBody(AuditRequest))
            const report = yield* Effect.provide(audit(path.appKey, input), context)
            return S.success(report)
          })
        )
      )
    )
  })
)
