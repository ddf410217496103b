/**
 * What `OpenApi.fromApi` cannot derive from the endpoints: the signed callbacks every merchant must
 * implement (OpenAPI 3.1 `webhooks`), the four signature headers as security schemes, and an
 * example on every request and response body (taken from the schemas' own examples).
 */
import { Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import * as JSONSchema from "effect/JSONSchema"

type Json = Record<string, unknown>

const EVENTS = [
  ["order.paid", "PAID", "The order was paid (the checkout page's Pay, or `POST /dev/orders/{orderSn}/pay`)."],
  ["order.failed", "FAILED", "The payment failed (the checkout page's Fail, or `POST /dev/orders/{orderSn}/fail`)."],
  ["order.expired", "EXPIRED", "The order outlived its time to live (30 minutes by default), or `/expire` was called."]
] as const

const callbackBodySchema = (eventType: string): Json => {
  const schema = JSONSchema.fromAST(Wire.CallbackEvent.ast, {
    definitions: {},
    target: "openApi3.1",
    additionalPropertiesStrategy: "allow"
  }) as unknown as Json
  const { $schema: _schema, ...plain } = schema
  const properties = { ...(plain.properties as Json), eventType: { type: "string", enum: [eventType] } }
  return { ...plain, properties }
}

const HOW_TO_VERIFY = [
  "Verify every callback before acting on it:",
  "",
  `1. Read the raw body bytes exactly as received (do not re-serialise parsed JSON), and the headers \`${Headers.CallbackHeaders.timestamp}\`, \`${Headers.CallbackHeaders.signature}\` and \`${Headers.CallbackHeaders.keyVersion}\`.`,
  `2. The signed string is \`<your appKey>.<${Headers.CallbackHeaders.timestamp}>.<raw body>\` (UTF-8).`,
  `3. Pick the platform public key whose version is \`${Headers.CallbackHeaders.keyVersion}\` from \`GET /dev/platform-keys\` (after a rotation the new key signs, the old one stays published; keep every published key).`,
  `4. Check \`${Headers.CallbackHeaders.signature}\` (standard Base64) as SHA256withRSA (RSASSA-PKCS1-v1_5) over that string, and refuse a timestamp more than 5 minutes from your clock.`,
  "5. Answer 2xx once it is stored; anything else (or a 3xx, or no answer within 10 s) is retried with exponential backoff and jitter, each attempt signed afresh with a new timestamp. Deduplicate by `eventId`."
].join("\n")

const webhook = ([eventType, status, when]: (typeof EVENTS)[number]): Json => {
  const example = {
    eventId: "evt_5f0c1d2e3a4b",
    eventType,
    orderSn: "PC20260101093000000482915730264",
    outerOrder: "M-1001",
    amount: "10.00",
    currency: "USD",
    status,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:05.000Z"
  }
  const header = (name: string, description: string, exampleValue: string) => ({
    name,
    in: "header",
    required: true,
    description,
    schema: { type: "string" },
    example: exampleValue
  })
  return {
    post: {
      operationId: `webhook.${eventType}`,
      tags: ["Callbacks"],
      summary: `${eventType}: sent to the merchant's notifyUrl`,
      description: `${when}\n\n${HOW_TO_VERIFY}`,
      parameters: [
        header(
          Headers.CallbackHeaders.timestamp,
          "Unix epoch milliseconds when this attempt was signed",
          "1767225605000"
        ),
        header(
          Headers.CallbackHeaders.signature,
          "Base64 SHA256withRSA over `<appKey>.<X-R-Ts>.<raw body>` with the platform key of X-R-Key-Version",
          "kq3P...=="
        ),
        header(
          Headers.CallbackHeaders.keyVersion,
          "Version of the platform key that signed this attempt (see GET /dev/platform-keys)",
          "1"
        )
      ],
      requestBody: {
        required: true,
        description: "Compact JSON; verify the signature over these exact bytes.",
        content: { "application/json": { schema: callbackBodySchema(eventType), example } }
      },
      responses: {
        "200": { description: "Any 2xx acknowledges the callback; anything else is retried." }
      }
    }
  }
}

/** An example value for a JSON schema: its own example, else one built from its parts. */
const exampleOf = (schema: unknown, components: Json, depth = 0): unknown => {
  if (typeof schema !== "object" || schema === null || depth > 12) return null
  const s = schema as Json
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0]
  if ("example" in s) return s.example
  if (typeof s.$ref === "string")
    return exampleOf(components[s.$ref.replace("#/components/schemas/", "")], components, depth + 1)
  if ("const" in s) return s.const
  if (Array.isArray(s.enum)) return s.enum[0]
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const options = s[key]
    if (Array.isArray(options)) {
      const first = options.find((option) => (option as Json).type !== "null") ?? options[0]
      return exampleOf(first, components, depth + 1)
    }
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type
  switch (type) {
    case "object": {
      const properties = (s.properties ?? {}) as Json
      return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, exampleOf(v, components, depth + 1)]))
    }
    case "array":
      return [exampleOf(s.items, components, depth + 1)]
    case "string":
      return typeof s.pattern === "string" && s.pattern === "^[A-Z]{3}$" ? "USD" : "string"
    case "integer":
    case "number":
      return 1
    case "boolean":
      return true
    case "null":
      return null
  }
  return null
}

/** Gives every media type of a request or response body an `example`. */
const withExamples = (spec: Json): Json => {
  const components = ((spec.components as Json | undefined)?.schemas ?? {}) as Json
  const paths = spec.paths as Record<string, Record<string, Json>>
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const bodies = [
        operation.requestBody as Json | undefined,
        ...Object.values((operation.responses ?? {}) as Record<string, Json>)
      ]
      for (const body of bodies) {
        const content = body?.content as Record<string, Json> | undefined
        if (content === undefined) continue
        for (const media of Object.values(content)) {
          if (media.example === undefined && media.examples === undefined) {
            media.example =
              exampleOf(media.schema, components) ??
              (String(Object.keys(content)[0]).startsWith("text/") ? "<!doctype html>…" : null)
          }
        }
      }
    }
  }
  return spec
}

const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"

/**
 * HttpApi declares its own decode error (400) on every API; the mock answers those as paramError
 * envelopes (`server/App.ts`), so the document shows only the envelope.
 */
const withoutFrameworkDecodeError = (spec: Json): Json => {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip)
    if (typeof value !== "object" || value === null) return value
    const record = value as Json
    if (Array.isArray(record.anyOf)) {
      const kept = record.anyOf.filter((item) => (item as { $ref?: string }).$ref !== DECODE_ERROR_REF)
      if (kept.length === 1 && Object.keys(record).length === 1) return strip(kept[0])
      return { ...record, anyOf: kept.map(strip) }
    }
    return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, strip(item)]))
  }
  const stripped = strip(spec) as Json
  const components = stripped.components as Json
  const { HttpApiDecodeError: _decodeError, Issue: _issue, PropertyKey: _key, ...schemas } = components.schemas as Json
  return { ...stripped, components: { ...components, schemas } }
}

/**
 * Completes the generated document (the `transform` of MockApi's OpenAPI annotations).
 *
 * @example
 * ```ts
 * HttpApi.make("mock").annotateContext(OpenApi.annotations({ transform: completeDocument }))
 * ```
 */
export const completeDocument = (generated: Record<string, unknown>): Record<string, unknown> => {
  const spec = withoutFrameworkDecodeError(generated)
  const components = spec.components as Json
  const tags = [
    ...((spec.tags ?? []) as Array<Json>),
    {
      name: "Callbacks",
      description: "Signed callbacks the mock sends to the merchant's notifyUrl on each move to a final state."
    }
  ]
  return withExamples({
    ...spec,
    tags,
    components,
    webhooks: Object.fromEntries(EVENTS.map((event) => [event[0], webhook(event)]))
  })
}
