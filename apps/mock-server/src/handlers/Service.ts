/**
 * The service routes: the developer dashboard (`/`), `/openapi.json` (from the one API definition), `/docs` (Scalar rendering it,
 * every asset inline) and `/healthz`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { openApiDocument } from "../api/Document.js"
import { MockApi } from "../api/MockApi.js"
import * as S from "../api/Schemas.js"
import { MockConfig } from "../config/Config.js"
import { DASHBOARD_CSP, dashboardPage } from "../dashboard/DashboardPage.js"
import { docsPage } from "../docs/DocsPage.js"
import { PublicUrl } from "../domain/orders/Orders.js"

/** The service routes' handlers, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const ServiceHandlers = HttpApiBuilder.group(MockApi, "service", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const url = yield* PublicUrl
    // Built on the first request, not at start-up: deriving the document from the API is a tenth of
    // the mock's start (bench/RESULTS.md, start-up).
    const document = yield* Effect.cached(Effect.sync(() => openApiDocument(url)))
    const json = yield* Effect.cached(Effect.map(document, (built) => JSON.stringify(built)))
    const page = yield* Effect.cached(Effect.flatMap(document, (built) => Effect.promise(() => docsPage(built))))
    const dashboard = dashboardPage(config.environment)
    return handlers
      .handle("dashboard", () =>
        Effect.succeed(
          HttpServerResponse.html(dashboard).pipe(
            HttpServerResponse.setHeaders({
              "content-security-policy": DASHBOARD_CSP,
              "cache-control": "no-store",
              "x-content-type-options": "nosniff",
              "referrer-policy": "no-referrer"
            })
          )
        )
      )
      .handle("openApi", () =>
        Effect.map(json, (text) => HttpServerResponse.text(text, { contentType: "application/json" }))
      )
      .handle("docs", () => Effect.map(page, (html) => HttpServerResponse.html(html)))
      .handle("healthz", () => Effect.succeed(S.success({ status: "ok" as const, environment: config.environment })))
  })
)
