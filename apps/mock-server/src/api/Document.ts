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
  // Unknown fields are ignored by the contract, so no schema may forbid them.
  ...OpenApi.fromApi(MockApi, { additionalPropertiesStrategy: "allow" }),
  servers: [{ url: serverUrl }]
})
