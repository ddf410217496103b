// The service routes (CONTRACT.md "The developer menu", last paragraph): /openapi.json lists every
// route of the contract with its methods, /docs renders it, /healthz answers SUCCESS.
import * as Wire from "@pc/core/Wire"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Every route of the contract: path (OpenAPI template) and its methods. */
const contractRoutes: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  [Wire.CREATE_ORDER_PATH, ["post"]],
  ["/dev/merchants", ["post"]],
  ["/dev/merchants/{appKey}", ["get"]],
  ["/dev/merchants/{appKey}/keys", ["post"]],
  ["/dev/merchants/{appKey}/keys/{version}/disable", ["post"]],
  ["/dev/merchants/{appKey}/notify-url", ["put"]],
  ["/dev/merchants/{appKey}/audit", ["post"]],
  ["/dev/platform-keys", ["get"]],
  ["/dev/platform-keys/rotate", ["post"]],
  ["/dev/platform-keys/{version}/activate", ["post"]],
  ["/dev/platform-keys/{version}/retire", ["post"]],
  ["/dev/orders/{orderSn}", ["get"]],
  ["/dev/orders/{orderSn}/pay", ["post"]],
  ["/dev/orders/{orderSn}/fail", ["post"]],
  ["/dev/orders/{orderSn}/expire", ["post"]],
  ["/dev/callbacks", ["get"]],
  ["/dev/callbacks/{id}/resend", ["post"]],
  ["/dev/events", ["get"]],
  ["/dev/clock", ["get"]],
  ["/dev/clock/advance", ["post"]],
  ["/dev/faults", ["get", "put", "delete"]],
  ["/", ["get"]],
  ["/h5/checkout/{orderSn}", ["get"]],
  ["/openapi.json", ["get"]],
  ["/docs", ["get"]],
  ["/healthz", ["get"]]
]

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])

let mock: Mock
let document: Record<string, unknown>
let paths: Record<string, Record<string, unknown>>

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  const response = await fetch(`${mock.url}/openapi.json`)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  expect(response.headers.get("x-request-id")).toBeTruthy()
  const parsed: unknown = JSON.parse(await response.text())
  if (!isRecord(parsed) || !isRecord(parsed.paths)) throw new Error("/openapi.json has no paths object")
  document = parsed
  paths = {}
  for (const [path, item] of Object.entries(parsed.paths)) {
    if (!isRecord(item)) throw new Error(`path item ${path} is not an object`)
    paths[path] = item
  }
})
afterAll(async () => {
  await mock?.close()
})

const operation = (path: string, method: string): Record<string, unknown> => {
  const op = paths[path]?.[method]
  if (!isRecord(op)) throw new Error(`no ${method.toUpperCase()} ${path} in /openapi.json`)
  return op
}

const parametersOf = (op: Record<string, unknown>): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(op.parameters) ? op.parameters.filter(isRecord) : []

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1.0 document with info and this server's URL", () => {
    expect(document.openapi).toBe("3.1.0")
    expect(isRecord(document.info) && typeof document.info.title === "string").toBe(true)
    expect(document.servers).toEqual([{ url: mock.url }])
  })

  it.each(contractRoutes)("lists %s with methods %j", (path, methods) => {
    expect(Object.keys(paths)).toContain(path)
    for (const method of methods) {
      const op = operation(path, method)
      expect(typeof op.summary).toBe("string")
      expect(isRecord(op.responses)).toBe(true)
    }
  })

  it("lists no route beyond the contract's (and the checkout page's buttons, and the dashboard's lists)", () => {
    const listed = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.has(key))
        .map((method) => `${method.toUpperCase()} ${path}`)
    )
    const expected = contractRoutes.flatMap(([path, methods]) => methods.map((m) => `${m.toUpperCase()} ${path}`))
    for (const route of expected) expect(listed).toContain(route)
    const extra = listed.filter((route) => !expected.includes(route))
    expect(extra.sort()).toEqual([
      "GET /dev/merchants",
      "GET /dev/orders",
      // The way back for a disabled key (issue 32): a web page could disable the test merchant's.
      "POST /dev/merchants/{appKey}/keys/{version}/enable",
      "POST /h5/checkout/{orderSn}/fail",
      "POST /h5/checkout/{orderSn}/pay"
    ])
    // The only production endpoint is the spec's; everything else is under /dev/ or /h5/ or a service route.
    for (const route of listed) {
      expect(route).toMatch(/ (\/openapi\/v2\/order\/create|\/dev\/.+|\/h5\/.+|\/openapi\.json|\/docs|\/healthz|\/)$/)
    }
  })

  it("declares every path template's parameters as required path parameters", () => {
    for (const [path, item] of Object.entries(paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
      for (const method of Object.keys(item).filter((key) => HTTP_METHODS.has(key))) {
        const declared = parametersOf(operation(path, method)).filter((p) => p.in === "path")
        expect(declared.map((p) => p.name).sort()).toEqual([...names].sort())
        for (const p of declared) expect(p.required).toBe(true)
      }
    }
  })

  it("documents the create-order headers and body", () => {
    const op = operation(Wire.CREATE_ORDER_PATH, "post")
    const headers = parametersOf(op).filter((p) => p.in === "header")
    expect(headers.map((p) => p.name)).toEqual(
      expect.arrayContaining(["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"])
    )
    expect(isRecord(op.requestBody)).toBe(true)
    const body = JSON.stringify(op.requestBody)
    for (const field of ["orderId", "amount", "currency"]) expect(body).toContain(field)
    expect(JSON.stringify(op.responses)).toContain("h5Url")
  })

  it("documents the create-order body as the contract has it: unknown fields allowed, orderId and currency rules", () => {
    const op = operation(Wire.CREATE_ORDER_PATH, "post")
    const schema = (op.requestBody as { content: { "application/json": { schema: Record<string, unknown> } } }).content[
      "application/json"
    ].schema
    expect(schema.type).toBe("object")
    expect(schema.required).toEqual(["orderId", "amount", "currency"])
    // The contract ignores unknown fields, so the schema must not forbid them.
    expect(schema.additionalProperties).not.toBe(false)
    const properties = schema.properties as Record<string, Record<string, unknown>>
    expect(properties.orderId).toMatchObject({ type: "string", minLength: 1, maxLength: 64 })
    expect(properties.currency).toMatchObject({ type: "string", pattern: "^[A-Z]{3}$" })
    expect(new RegExp(String(properties.currency!.pattern)).test("USD")).toBe(true)
    expect(new RegExp(String(properties.currency!.pattern)).test("usd")).toBe(false)
  })

  it("embeds plain schemas: no $schema of their own, nothing that forbids extra properties, every $ref resolves", () => {
    const text = JSON.stringify(document)
    expect(text).not.toContain('"$schema"')
    expect(text).not.toContain("draft-07")
    expect(text).not.toMatch(/"additionalProperties":false/)
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      const name = /^#\/components\/schemas\/(.+)$/.exec(ref!)?.[1]
      expect(name, ref).toBeDefined()
      const components = document.components as { schemas?: Record<string, unknown> } | undefined
      expect(components?.schemas?.[name!], ref).toBeDefined()
    }
  })

  it("documents the query parameters of GET /dev/callbacks and the dashboard's lists, with the limit's bounds", () => {
    const query = parametersOf(operation("/dev/callbacks", "get")).filter((p) => p.in === "query")
    expect(query.map((p) => p.name)).toEqual(["orderSn", "limit"])
    for (const path of ["/dev/orders", "/dev/merchants"]) {
      const [limit] = parametersOf(operation(path, "get")).filter((p) => p.in === "query")
      expect(limit).toMatchObject({ name: "limit", required: false })
      expect(JSON.stringify(limit)).toContain("200")
    }
  })

  it("never contains a private key", () => {
    expect(JSON.stringify(document)).not.toMatch(/PRIVATE KEY/)
  })

  it("gives every operation a unique operationId", () => {
    const ids = Object.values(paths).flatMap((item) =>
      Object.entries(item)
        .filter(([key]) => HTTP_METHODS.has(key))
        .map(([, op]) => (isRecord(op) ? op.operationId : undefined))
    )
    for (const id of ids) expect(typeof id).toBe("string")
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("describes only routes that answer: no documented route is a routing 404 or 405", async () => {
    for (const [path, item] of Object.entries(paths)) {
      for (const method of Object.keys(item).filter((key) => HTTP_METHODS.has(key))) {
        const concrete = path.replace(/\{[^}]+\}/g, "x")
        const response = await fetch(`${mock.url}${concrete}`, { method: method.toUpperCase(), redirect: "manual" })
        // An event stream never ends: its status and first bytes are the answer.
        const streaming = response.headers.get("content-type")?.startsWith("text/event-stream") === true
        const text = streaming ? "" : await response.text()
        if (streaming) await response.body?.cancel()
        expect({ route: `${method} ${path}`, status: response.status }).not.toMatchObject({ status: 405 })
        if (response.status === 404) expect(text).not.toContain("no route for")
        expect(response.status).toBeLessThan(500)
      }
    }
  })
})

describe("GET /docs", () => {
  it("answers an HTML page that links /openapi.json and names the routes", async () => {
    const response = await fetch(`${mock.url}/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    const html = await response.text()
    expect(html).toMatch(/^<!doctype html>/i)
    expect(html).toMatch(/<a [^>]*href="\/openapi\.json"/)
    expect(html).toContain(Wire.CREATE_ORDER_PATH)
    expect(html).toContain("/dev/platform-keys/rotate")
  })
})

describe("GET /healthz", () => {
  it("answers SUCCESS with the environment", async () => {
    const response = await fetch(`${mock.url}/healthz`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    expect(response.headers.get("x-request-id")).toBeTruthy()
    const json: unknown = await response.json()
    expect(json).toEqual({ code: "SUCCESS", msg: null, data: expect.objectContaining({ environment: "production" }) })
  })

  it("answers HEAD like GET, without a body", async () => {
    const response = await fetch(`${mock.url}/healthz`, { method: "HEAD" })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe("")
  })
})
