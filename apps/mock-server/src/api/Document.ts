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
  ...(withoutAdditionalTrue(
    OpenApi.fromApi(MockApi, { additionalPropertiesStrategy: "allow" })
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
