// /openapi.json as a document other tools consume: valid OpenAPI 3.1 (checked by an independent
// validator), the callbacks as webhooks with their signing rules, the signature headers described
// once as the header parameters they are (with a sample /docs can show that works), and an example on
// every request and response body.
import { Validator } from "@seriousme/openapi-schema-validator"
import { Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"

type Json = Record<string, unknown>

let mock: Mock
let document: Json

beforeAll(async () => {
  mock = await startMock()
  document = (await (await fetch(`${mock.url}/openapi.json`)).json()) as Json
})
afterAll(async () => {
  await mock?.close()
})

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options"]

describe("/openapi.json as OpenAPI 3.1", () => {
  it("validates against the OpenAPI 3.1 schema", async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it("a broken document does not validate (the validator is really checking)", async () => {
    const broken = structuredClone(document) as Json
    ;(broken.paths as Record<string, Json>)["/healthz"] = { get: { responses: "none" } }
    const result = await new Validator().validate(broken)
    expect(result.valid).toBe(false)
  })

  it("lists every route the mock answers, and the three callbacks as webhooks", () => {
    const paths = document.paths as Record<string, Json>
    for (const path of [
      Wire.CREATE_ORDER_PATH,
      "/dev/merchants",
      "/dev/merchants/{appKey}",
      "/dev/merchants/{appKey}/keys",
      "/dev/merchants/{appKey}/keys/{version}/disable",
      "/dev/merchants/{appKey}/notify-url",
      "/dev/platform-keys",
      "/dev/platform-keys/rotate",
      "/dev/orders/{orderSn}",
      "/dev/orders/{orderSn}/pay",
      "/dev/orders/{orderSn}/fail",
      "/dev/orders/{orderSn}/expire",
      "/dev/callbacks",
      "/dev/callbacks/{id}/resend",
      "/h5/checkout/{orderSn}",
      "/openapi.json",
      "/docs",
      "/healthz"
    ]) {
      expect(Object.keys(paths)).toContain(path)
    }
    const webhooks = document.webhooks as Record<string, { post: Json }>
    expect(Object.keys(webhooks).sort()).toEqual(["order.expired", "order.failed", "order.paid"])
    for (const [eventType, item] of Object.entries(webhooks)) {
      const headers = (item.post.parameters as Array<Json>).map((p) => [p.in, p.name])
      expect(headers).toEqual([
        ["header", Headers.CallbackHeaders.timestamp],
        ["header", Headers.CallbackHeaders.signature],
        ["header", Headers.CallbackHeaders.keyVersion]
      ])
      const description = String(item.post.description)
      expect(description).toContain(`<your appKey>.<${Headers.CallbackHeaders.timestamp}>.<raw body>`)
      expect(description).toContain("/dev/platform-keys")
      const body = (item.post.requestBody as { content: Record<string, { schema: Json; example: Json }> }).content[
        "application/json"
      ]!
      expect(body.schema.required).toEqual(
        expect.arrayContaining(["eventId", "eventType", "orderSn", "amount", "currency", "status"])
      )
      expect((body.schema.properties as Record<string, Json>).eventType).toEqual({ type: "string", enum: [eventType] })
      expect(body.example.eventType).toBe(eventType)
    }
  })

  it("describes the four request headers once, as headers with examples, not as a token or key scheme", () => {
    const schemes = ((document.components as Json).securitySchemes ?? {}) as Record<string, Json>
    // A signature is computed per request: no scheme (apiKey, bearer) may stand for an X-R-* header.
    const requestHeaders: ReadonlyArray<string> = Object.values(Headers.RequestHeaders)
    expect(Object.values(schemes).filter((scheme) => requestHeaders.includes(String(scheme.name)))).toEqual([])
    const create = (document.paths as Record<string, Record<string, Json>>)[Wire.CREATE_ORDER_PATH]!.post!
    expect(create.security).toEqual([])
    const parameters = (create.parameters as Array<Json>).filter((p) => p.in === "header")
    for (const name of requestHeaders) {
      const described = parameters.filter((p) => String(p.name).toLowerCase() === name.toLowerCase())
      expect(described, name).toHaveLength(1)
      expect(String(described[0]!.example ?? "")).not.toBe("")
      expect(String(described[0]!.description)).not.toMatch(/bearer|token/i)
    }
    expect(JSON.stringify(document)).not.toContain("YOUR_SECRET_TOKEN")
  })

  it("shows how to sign: the string to sign, an openssl and curl sample, and pc sign --curl", () => {
    const create = (document.paths as Record<string, Record<string, Json>>)[Wire.CREATE_ORDER_PATH]!.post!
    const description = String(create.description)
    expect(description).toContain(`POST ${Wire.CREATE_ORDER_PATH}\n<appKey>.<X-R-TS>.<raw body>`)
    expect(description).toContain("openssl dgst -sha256 -sign")
    expect(description).toMatch(/npx pc sign .*--curl/)
    const [sample] = create["x-codeSamples"] as Array<Json>
    expect(String(sample!.source)).toContain('-H "X-R-Signature: $SIG"')
  })

  it("describes the create-order body as the contract has it: amount a string or a number, no invented fields", () => {
    const create = (document.paths as Record<string, Record<string, Json>>)[Wire.CREATE_ORDER_PATH]!.post!
    const schema = ((create.requestBody as Json).content as Record<string, Json>)["application/json"]!.schema as Json
    const properties = schema.properties as Record<string, Json>
    expect(Object.keys(properties)).toEqual(["orderId", "amount", "currency"])
    expect((properties.amount!.anyOf as Array<Json>).map((branch) => branch.type)).toEqual(["string", "number"])
    // Unknown fields are allowed by leaving additionalProperties out (an explicit true made /docs
    // show a "propertyName*" field).
    expect("additionalProperties" in schema).toBe(false)
    expect(JSON.stringify(document)).not.toContain('"additionalProperties":true')
  })

  it("gives every request and response body an example", () => {
    const missing: Array<string> = []
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue
        const bodies: Array<[string, Json | undefined]> = [
          ["request", operation.requestBody as Json | undefined],
          ...Object.entries((operation.responses ?? {}) as Record<string, Json>)
        ]
        for (const [which, body] of bodies) {
          for (const [type, media] of Object.entries((body?.content ?? {}) as Record<string, Json>)) {
            if (media.example === undefined || media.example === null)
              missing.push(`${method} ${path} ${which} ${type}`)
          }
        }
      }
    }
    expect(missing).toEqual([])
  })

  it("says that every 429 and 503 carries Retry-After, as the mock sends it", async () => {
    const answers: Array<string> = []
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue
        for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
          if (status !== "429" && status !== "503") continue
          const header = (response.headers as Record<string, Json> | undefined)?.["Retry-After"]
          answers.push(`${method} ${path} ${status} ${header === undefined ? "without" : "with"} Retry-After`)
        }
      }
    }
    const create = answers.filter((answer) => answer.includes(Wire.CREATE_ORDER_PATH))
    expect(create).toEqual([
      `post ${Wire.CREATE_ORDER_PATH} 429 with Retry-After`,
      `post ${Wire.CREATE_ORDER_PATH} 503 with Retry-After`
    ])
    expect(answers.filter((answer) => answer.includes("without"))).toEqual([])
  })

  it("takes its examples from the schemas: create-order's request example is a valid body", () => {
    const create = (document.paths as Record<string, Record<string, Json>>)[Wire.CREATE_ORDER_PATH]!.post!
    const example = (create.requestBody as { content: Record<string, { example: Json }> }).content["application/json"]!
      .example
    expect(example).toEqual({ orderId: "M-1001", amount: "10.00", currency: "USD" })
  })
})
