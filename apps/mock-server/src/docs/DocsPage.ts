/**
 * The `/docs` page: Scalar's interactive reference of the OpenAPI document, with the document and
 * the bundle inline and Scalar's own outside fetches (fonts, its proxy, telemetry) switched off.
 */
import { escapeHtml } from "../dashboard/Html.js"
import { scalarBundle } from "./ScalarBundle.js"

/** JSON inside a `<script>`: `<` escaped so no string in the document can close the element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))

/**
 * The page for `document`.
 *
 * @example
 * ```ts
 * const html = await docsPage(openApiDocument("http://127.0.0.1:4010"))
 * ```
 */
export const docsPage = async (document: {
  readonly info: { readonly title: string; readonly description?: string | undefined }
}): Promise<string> => {
  const configuration = {
    _integration: "html",
    withDefaultFonts: false,
    hideClientButton: false,
    telemetry: false,
    showDeveloperTools: "never",
    defaultOpenAllTags: true
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)}</title>
<style>body { margin: 0; font-family: system-ui, sans-serif; } .pc-doc-link { font-size: .85rem; padding: .4rem 1rem; background: #f4f4f5; }</style>
</head>
<body>
<div class="pc-doc-link">${escapeHtml(document.info.title)} · the machine-readable document is <a href="/openapi.json">/openapi.json</a></div>
<noscript>This page renders <a href="/openapi.json">/openapi.json</a> with a script.</noscript>
<script id="api-reference" type="application/json">${scriptJson(document)}</script>
<script>document.getElementById("api-reference").dataset.configuration = JSON.stringify(${scriptJson(configuration)})</script>
<script>${(await scalarBundle()).replace(/<\/script/gi, "<\\/script")}</script>
</body>
</html>`
}
