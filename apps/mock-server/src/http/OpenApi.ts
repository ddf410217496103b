/**
 * The OpenAPI 3.1 document of a route table (`/openapi.json`): every route that answers, its
 * parameters, its body and its answer. Built from the table itself, so it cannot drift from it.
 */
import { ErrorCode } from "@pc/core"
import { JSONSchema, type Schema } from "effect"
import type { Route } from "./Router.js"

const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}")

/**
 * A schema as OpenAPI 3.1 embeds it: no `$schema` of its own (the document's dialect applies),
 * unknown properties allowed (the contract ignores unknown fields), shared definitions under
 * `components.schemas`.
 */
const jsonSchemaOf = (schema: Schema.Schema.Any, definitions: Record<string, JSONSchema.JsonSchema7>) =>
  JSONSchema.fromAST(schema.ast, {
    definitions,
    definitionPath: "#/components/schemas/",
    target: "openApi3.1",
    additionalPropertiesStrategy: "allow"
  })

const envelopeSchema = (data: object | undefined) => ({
  type: "object",
  required: ["code", "msg", "data"],
  properties: {
    code: { type: "string", enum: [...ErrorCode.resultCodes] },
    msg: { type: ["string", "null"] },
    data: data === undefined ? { type: ["object", "array", "null"] } : { anyOf: [data, { type: "null" }] }
  }
})

/**
 * The OpenAPI 3.1 document of a route table, served at `serverUrl`.
 *
 * @example
 * ```ts
 * const document = openApiDocument(routes, "production", "http://127.0.0.1:4010")
 * document.paths["/openapi/v2/order/create"]
 * ```
 */
export const openApiDocument = (routes: ReadonlyArray<Route<unknown>>, environment: string, serverUrl: string) => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const parameters = [
      ...[...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" }
      })),
      ...(r.query ?? []).map((q) => ({
        name: q.name,
        in: "query",
        required: false,
        description: q.description,
        schema: { type: "string" }
      })),
      ...(r.headers ?? []).map((h) => ({
        name: h.name,
        in: "header",
        required: h.required,
        description: h.description,
        schema: { type: "string" }
      }))
    ]
    const responses =
      r.answer.kind === "envelope"
        ? {
            default: {
              description:
                "The envelope; its HTTP status follows its code (SUCCESS 200, paramError 400, signError 401, ...)",
              content: {
                "application/json": {
                  schema: envelopeSchema(
                    r.answer.data === undefined ? undefined : jsonSchemaOf(r.answer.data, definitions)
                  )
                }
              }
            }
          }
        : r.answer.kind === "html"
          ? { "200": { description: "An HTML page", content: { "text/html": { schema: { type: "string" } } } } }
          : r.answer.kind === "redirect"
            ? { "303": { description: "Back to the page" } }
            : { "200": { description: "JSON", content: { "application/json": { schema: { type: "object" } } } } }
    const operation: Record<string, unknown> = {
      operationId: `${r.method.toLowerCase()}${r.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
      summary: r.summary,
      tags: [r.tag],
      parameters,
      responses
    }
    if (r.description !== undefined) operation.description = r.description
    if (r.body !== undefined) {
      operation.requestBody = {
        required: true,
        content: { "application/json": { schema: jsonSchemaOf(r.body, definitions) } }
      }
    }
    const path = openApiPath(r.path)
    paths[path] = { ...paths[path], [r.method.toLowerCase()]: operation }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: `Merchant Payment Connect mock (${environment})`,
      version: "2",
      description:
        "A faithful emulator of the Merchant Payment Connect service. `/openapi/v2/*` is the service's own API; " +
        "`/dev/*` is the mock's developer menu; `/h5/*` the hosted checkout pages."
    },
    servers: [{ url: serverUrl }],
    paths,
    ...(Object.keys(definitions).length === 0 ? {} : { components: { schemas: definitions } })
  }
}

/** The document {@link openApiDocument} builds. */
export type OpenApiDocument = ReturnType<typeof openApiDocument>
