/**
 * The OpenAPI 3.1 document of the mock (`/openapi.json`, `/docs`): `OpenApi.fromApi` of the one
 * API definition, served at the mock's public URL.
 */
import { OpenApi } from "@effect/platform"
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
  // Unknown fields are ignored by the contract, so no schema may forbid them.
  ...withoutFrameworkDecodeError(OpenApi.fromApi(MockApi, { additionalPropertiesStrategy: "allow" })),
  servers: [{ url: serverUrl }]
})

const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"

/**
 * HttpApi declares its own decode error (400) on every API; the mock answers those as paramError
 * envelopes (`http/App.ts`), so the document shows only the envelope.
 */
const withoutFrameworkDecodeError = (spec: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip)
    if (typeof value !== "object" || value === null) return value
    const record = value as Record<string, unknown>
    if (Array.isArray(record.anyOf)) {
      const kept = record.anyOf.filter((item) => (item as { $ref?: string }).$ref !== DECODE_ERROR_REF)
      if (kept.length === 1 && Object.keys(record).length === 1) return strip(kept[0])
      return { ...record, anyOf: kept.map(strip) }
    }
    return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, strip(item)]))
  }
  const stripped = strip(spec) as OpenApi.OpenAPISpec
  const { HttpApiDecodeError: _decodeError, Issue: _issue, PropertyKey: _key, ...schemas } = stripped.components.schemas
  return { ...stripped, components: { ...stripped.components, schemas } }
}
