/**
 * The OpenAPI 3.1 document of the mock (`/openapi.json`, `/docs`): `OpenApi.fromApi` of the one
 * API definition (completed by `Webhooks.ts` through its transform), served at the mock's public URL.
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { MockApi } from "./MockApi.js"

/**
 * The document, with `servers` set to where this mock answers.
 *
 * @example
 * ```ts
 * openApiDocument("http://127.0.0.1:4010").paths["/openapi/v2/order/create"]
 * ```
 */
export const openApiDocument = (serverUrl: string) => ({
  // Unknown fields are ignored by the contract, so no schema may forbid them. An absent
  // additionalProperties allows them too, and an explicit `true` made /docs show a field named
  // "propertyName*" in every body, so it is left out.
  ...(withRetryAfter(
    withoutAdditionalTrue(OpenApi.fromApi(MockApi, { additionalPropertiesStrategy: "allow" })) as OpenApi.OpenAPISpec
  ) as OpenApi.OpenAPISpec),
  servers: [{ url: serverUrl }]
})

/** `value` without any `additionalProperties: true` (JSON Schema's default) at any depth. */
const withoutAdditionalTrue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutAdditionalTrue)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, field]) => !(key === "additionalProperties" && field === true))
      .map(([key, field]) => [key, withoutAdditionalTrue(field)])
  )
}

/** What a 429 or a 503 carries besides its envelope: when to try again (CONTRACT.md). */
const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds to wait before trying again (rateLimited 429, serviceUnavailable 503).",
    required: true,
    schema: { type: "integer", minimum: 1 },
    example: 1
  }
}

/**
 * Every 429 and 503 response with its `Retry-After` header: the envelope schemas can say the body,
 * not the headers, and a client generated from the document should know to read it.
 */
const withRetryAfter = (document: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => ({
  ...document,
  paths: Object.fromEntries(
    Object.entries(document.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          const responses = (operation as { responses?: Record<string, object> }).responses
          if (typeof operation !== "object" || operation === null || responses === undefined) return [method, operation]
          return [
            method,
            {
              ...operation,
              responses: Object.fromEntries(
                Object.entries(responses).map(([status, response]) => [
                  status,
                  status === "429" || status === "503" ? { ...response, headers: RETRY_AFTER } : response
                ])
              )
            }
          ]
        })
      )
    ])
  ) as OpenApi.OpenAPISpec["paths"]
})
