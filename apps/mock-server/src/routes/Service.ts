/**
 * The service routes: `/openapi.json` (OpenAPI 3.1, built from the same route table that answers,
 * so it lists every route), `/docs` (a page rendering it, with no outside assets) and `/healthz`.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { ok } from "../http/Envelope.js"
import { escapeHtml } from "../http/Html.js"
import { type OpenApiDocument, openApiDocument } from "../http/OpenApi.js"
import { type Route, route } from "../http/Router.js"

const docsPage = (document: OpenApiDocument): string => {
  const rows = Object.entries(document.paths)
    .flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, op]) => {
        const operation = op as { summary: string; tags: Array<string>; description?: string; requestBody?: unknown }
        return `<tr><td><span class="m ${method}">${method.toUpperCase()}</span></td><td><code>${escapeHtml(path)}</code></td>
<td>${escapeHtml(operation.tags[0] ?? "")}</td><td>${escapeHtml(operation.summary)}${
          operation.description === undefined ? "" : `<div class="d">${escapeHtml(operation.description)}</div>`
        }${
          operation.requestBody === undefined
            ? ""
            : `<details><summary>body</summary><pre>${escapeHtml(JSON.stringify((operation.requestBody as { content: { "application/json": { schema: unknown } } }).content["application/json"].schema, null, 2))}</pre></details>`
        }</td></tr>`
      })
    )
    .join("\n")
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(document.info.title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; padding: 0 1rem; }
table { border-collapse: collapse; width: 100%; } td { border-top: 1px solid #eee; padding: .5rem; vertical-align: top; }
.m { font-family: monospace; font-weight: 600; padding: .1rem .4rem; border-radius: 4px; color: white; }
.get { background: #2563eb; } .post { background: #16a34a; } .put { background: #ca8a04; }
.d { color: #555; font-size: .9rem; margin-top: .25rem; } pre { font-size: .8rem; background: #f6f6f6; padding: .5rem; }
</style></head><body>
<h1>${escapeHtml(document.info.title)}</h1>
<p>${escapeHtml(document.info.description)} The machine-readable document is <a href="/openapi.json">/openapi.json</a>.</p>
<table>${rows}</table>
</body></html>`
}

/** The service routes; `routes` is the whole table, so the document describes every route. */
export const serviceRoutes = (
  routes: () => ReadonlyArray<Route<unknown>>,
  environment: string,
  serverUrl: string
): ReadonlyArray<Route<never>> => {
  let document: OpenApiDocument | undefined
  const doc = () => {
    document ??= openApiDocument(routes(), environment, serverUrl)
    return document
  }
  return [
    route({
      method: "GET",
      path: "/openapi.json",
      tag: "Service",
      summary: "This OpenAPI 3.1 document",
      answer: { kind: "json" },
      handle: () => Effect.sync(() => HttpServerResponse.unsafeJson(doc()))
    }),
    route({
      method: "GET",
      path: "/docs",
      tag: "Service",
      summary: "A page that renders the OpenAPI document",
      answer: { kind: "html" },
      handle: () => Effect.sync(() => HttpServerResponse.html(docsPage(doc())))
    }),
    route({
      method: "GET",
      path: "/healthz",
      tag: "Service",
      summary: "Liveness: answers SUCCESS with the environment",
      answer: { kind: "envelope" },
      handle: () => Effect.succeed(ok({ status: "ok", environment }))
    })
  ]
}
