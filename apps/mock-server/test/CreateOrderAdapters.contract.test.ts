// The contract of the two create-order adapters, the node:http fast path
// (src/server/CreateOrderFastPath.ts) and the HttpApi handler (src/handlers/CreateOrder.ts): both
// call the one flow (src/domain/orders/CreateOrderFlow.ts), and this suite holds them to answering
// alike. The same requests, sent to a mock with the fast path and to one without it, get the same
// status, the same envelope bytes and the same contract headers, for every code the route can
// answer; a refused signature is logged alike; the rate limit refuses alike. And the fast path takes
// exactly the create-order requests, leaving every other to the app.
import { Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { LogLevel } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaults, type MockConfigShape } from "../src/config/Config.js"
import type { FastPath } from "../src/server/CreateOrderFastPath.js"
import { withFastPath } from "../src/server/CreateOrderFastPath.js"
import { start } from "../src/main/Server.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { signCreateOrder, testMerchantSigner } from "./support/mock.js"
import { rawExchange, requestBytes } from "./support/raw.js"
import type { Mock } from "@pc/test-support/mock"

const startBoth = (overrides: Partial<MockConfigShape>) =>
  Promise.all(
    [true, false].map((createOrderFastPath) =>
      start({ ...defaults, port: 0, db: ":memory:", ...overrides }, { logLevel: LogLevel.None, createOrderFastPath })
    )
  ) as Promise<[Mock, Mock]>

const portOf = (mock: Mock) => Number(new URL(mock.listenUrl).port)

/** `bytes` addressed to the mock on `port`: its Host names it (a Host naming another is refused, issue 32). */
const toPort = (port: number, bytes: Uint8Array): Buffer =>
  Buffer.from(
    Buffer.from(bytes).toString("latin1").replace("Host: 127.0.0.1\r\n", `Host: 127.0.0.1:${port}\r\n`),
    "latin1"
  )

interface Case {
  readonly name: string
  readonly body?: string | Uint8Array
  readonly timestamp?: string
  readonly keyVersion?: string
  readonly appKey?: string
  /** Replaces the signature; `null` sends none. */
  readonly signature?: string | null
  readonly contentType?: string | null
  /** Send the body chunked, without Content-Length. */
  readonly chunked?: boolean
}

const orderBody = (orderId: string, amount = '"10.00"', currency = "USD") =>
  `{"orderId":"${orderId}","amount":${amount},"currency":"${currency}"}`

/** The request bytes of a case, signed now with the test merchant's key (unless the case says otherwise). */
const requestOf = async (test: Case, signer: Awaited<ReturnType<typeof testMerchantSigner>>) => {
  const body = test.body ?? orderBody("fast-1")
  const text = typeof body === "string" ? body : Buffer.from(body).toString("latin1")
  const timestamp = test.timestamp ?? String(Date.now())
  const appKey = test.appKey ?? TEST_MERCHANT_APP_KEY
  const signature =
    test.signature === undefined ? await signCreateOrder(signer, { appKey, timestamp, body: text }) : test.signature
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body)
  const headers: Array<readonly [string, string]> = [
    ["Host", "127.0.0.1"],
    [Headers.RequestHeaders.appKey, appKey],
    [Headers.RequestHeaders.timestamp, timestamp],
    [Headers.RequestHeaders.keyVersion, test.keyVersion ?? "1"]
  ]
  if (signature !== null) headers.push([Headers.RequestHeaders.signature, signature])
  if (test.contentType !== null) headers.push(["Content-Type", test.contentType ?? "application/json"])
  if (test.chunked === true) {
    headers.push(["Transfer-Encoding", "chunked"])
    const chunked = Buffer.concat([
      Buffer.from(`${bytes.length.toString(16)}\r\n`),
      bytes,
      Buffer.from("\r\n0\r\n\r\n")
    ])
    return requestBytes("POST", Wire.CREATE_ORDER_PATH, headers, chunked)
  }
  headers.push(["Content-Length", String(bytes.length)])
  return requestBytes("POST", Wire.CREATE_ORDER_PATH, headers, bytes)
}

/** What must be equal on both paths: status, envelope bytes (orderSn drawn at random made equal), contract headers. */
const comparable = async (port: number, bytes: Buffer) => {
  const answer = await rawExchange(port, bytes)
  if (answer.kind !== "answer") return answer
  return {
    status: answer.status,
    // The two mocks answer moments apart: a clock distance in a window refusal ("1793744672 s
    // behind") may differ by a second between them, so it is compared as a shape, not a number.
    body: answer.body
      .replace(/PC\d{29}/g, "PC<orderSn>")
      .replace(/http:\/\/127\.0\.0\.1:\d+/g, "<url>")
      .replace(/\d+ s (behind|ahead of)/g, "<n> s $1"),
    contentType: answer.headers["content-type"],
    signatureCheck: answer.headers[Headers.SIGNATURE_CHECK.toLowerCase()],
    retryAfter: answer.headers["retry-after"],
    hasRequestId: /^\S{8,}$/.test(answer.headers[Headers.REQUEST_ID.toLowerCase()] ?? "")
  }
}

const deepBody = `{"orderId":"deep","amount":"1.00","currency":"USD","x":${"[".repeat(70)}${"]".repeat(70)}}`

/** Every answer of the route, in an order where the earlier ones set up the later ones (idempotency). */
const cases: ReadonlyArray<Case> = [
  { name: "a new order" },
  { name: "the same order again (idempotent)" },
  { name: "the same orderId with another amount", body: orderBody("fast-1", '"11.00"') },
  { name: "an amount written as a JSON number", body: orderBody("fast-2", "10.5") },
  { name: "no signature", signature: null },
  { name: "a signature that does not match", signature: Buffer.alloc(256, 7).toString("base64") },
  { name: "a signature that is not Base64", signature: "not base64!" },
  { name: "a timestamp in seconds", timestamp: "1700000000" },
  { name: "a timestamp that is not a number", timestamp: "soon" },
  { name: "an unknown appKey", appKey: "00000000-0000-4000-8000-000000000000" },
  { name: "a malformed appKey", appKey: "merchant-1" },
  { name: "an unknown key version", keyVersion: "9" },
  { name: "a malformed key version", keyVersion: "v1" },
  { name: "a text/plain body", contentType: "text/plain" },
  { name: "no Content-Type", contentType: null },
  { name: "a JSON array", body: "[1,2]" },
  { name: "invalid JSON", body: "{orderId:" },
  { name: "bytes that are not UTF-8", body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) },
  { name: "a key written twice", body: '{"orderId":"a","orderId":"b","amount":"1.00","currency":"USD"}' },
  { name: "nesting deeper than 64 levels", body: deepBody },
  { name: "a missing orderId", body: '{"amount":"1.00","currency":"USD"}' },
  { name: "an orderId of 65 characters", body: orderBody("x".repeat(65)) },
  { name: "too many decimals", body: orderBody("fast-3", '"1.001"') },
  { name: "an unknown currency", body: orderBody("fast-4", '"1.00"', "XXX") },
  { name: "a body over the limit", body: orderBody("y".repeat(2_000)) },
  { name: "a chunked body over the limit", body: orderBody("z".repeat(2_000)), chunked: true },
  { name: "an empty body", body: "" }
]

describe.each(["production", "sandbox"] as const)(
  "create-order in %s: both adapters (fast path, HttpApi handler)",
  (environment) => {
    let mocks: [Mock, Mock]
    let signer: Awaited<ReturnType<typeof testMerchantSigner>>
    beforeAll(async () => {
      signer = await testMerchantSigner()
      mocks = await startBoth({ environment, bodyLimitBytes: 1024 })
    })
    afterAll(async () => {
      await Promise.all(mocks.map((mock) => mock.close()))
    })

    it("answer every request alike, in the same sequence", async () => {
      for (const test of cases) {
        const bytes = await requestOf(test, signer)
        const [fast, routed] = [
          await comparable(portOf(mocks[0]), toPort(portOf(mocks[0]), bytes)),
          await comparable(portOf(mocks[1]), toPort(portOf(mocks[1]), bytes))
        ]
        expect({ case: test.name, ...fast }).toEqual({ case: test.name, ...routed })
      }
    })
  }
)

describe.each(["production", "sandbox"] as const)(
  "a refused signature in %s: both adapters (fast path, HttpApi handler)",
  (environment) => {
    it("log its warning with the answer's request id and the likely cause", async () => {
      const signer = await testMerchantSigner()
      const lines: Array<Array<string>> = [[], []]
      const mocks = await Promise.all(
        [true, false].map((createOrderFastPath, i) =>
          start(
            { ...defaults, port: 0, db: ":memory:", environment },
            { logLevel: LogLevel.Info, createOrderFastPath, logSink: (line) => lines[i]!.push(line) }
          )
        )
      )
      try {
        for (const [i, mock] of mocks.entries()) {
          const body = orderBody(`warn-${i}`)
          // Signed over the pretty-printed body, sent compact: a mistake the diagnosis names.
          const timestamp = String(Date.now())
          const signature = await signCreateOrder(signer, {
            timestamp,
            body: JSON.stringify(JSON.parse(body), null, 2)
          })
          const answer = await rawExchange(
            portOf(mock),
            toPort(portOf(mock), await requestOf({ name: "", body, signature, timestamp }, signer))
          )
          if (answer.kind !== "answer") throw new Error(`no answer: ${answer.kind}`)
          expect(answer.status).toBe(environment === "production" ? 401 : 200)
          const requestId = answer.headers[Headers.REQUEST_ID.toLowerCase()]!
          const warning = lines[i]!.find((line) => line.includes("signature check failed"))
          expect(warning).toContain(`requestId=${requestId}`)
          expect(warning).toMatch(/level=WARN/)
          expect(warning).toMatch(/likelyCause="the body signed was pretty-printed JSON/)
        }
      } finally {
        await Promise.all(mocks.map((mock) => mock.close()))
      }
    })
  }
)

describe("create-order rate limit: both adapters (fast path, HttpApi handler)", () => {
  it("refuse the same request of a sequence with rateLimited and Retry-After", async () => {
    const signer = await testMerchantSigner()
    const mocks = await startBoth({ environment: "production", rateLimitPerMinute: 2 })
    try {
      const answers = await Promise.all(
        mocks.map(async (mock) => {
          const statuses: Array<number | string> = []
          for (let i = 0; i < 3; i++) {
            const answer = await rawExchange(
              portOf(mock),
              toPort(portOf(mock), await requestOf({ name: "", body: orderBody(`rl-${i}`) }, signer))
            )
            statuses.push(answer.kind === "answer" ? answer.status : answer.kind)
            if (i === 2 && answer.kind === "answer") {
              expect(JSON.parse(answer.body)).toMatchObject({ code: "rateLimited", data: null })
              expect(Number(answer.headers["retry-after"])).toBeGreaterThanOrEqual(1)
            }
          }
          return statuses
        })
      )
      expect(answers).toEqual([
        [200, 200, 429],
        [200, 200, 429]
      ])
    } finally {
      await Promise.all(mocks.map((mock) => mock.close()))
    }
  })
})

describe("withFastPath", () => {
  let server: Server
  const reachedApp: Array<string> = []
  const taken: Array<string> = []
  beforeAll(async () => {
    const fastPath: FastPath = (request, response) => {
      if (request.method !== "POST" || request.url !== Wire.CREATE_ORDER_PATH) return false
      taken.push(`${request.method} ${request.url}`)
      request.resume()
      response.end("fast")
      return true
    }
    server = withFastPath(
      createServer((request: IncomingMessage, response) => {
        reachedApp.push(`${request.method} ${request.url}`)
        request.resume()
        response.end("app")
      }),
      fastPath
    )
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
  })

  it("serves what the fast path takes and hands every other request to the server's listeners", async () => {
    const { port } = server.address() as AddressInfo
    const send = async (method: string, path: string) => {
      const answer = await rawExchange(
        port,
        requestBytes(method, path, [
          ["Host", "x"],
          ["Content-Length", "0"]
        ])
      )
      return answer.kind === "answer" ? answer.body : answer.kind
    }
    expect(await send("POST", Wire.CREATE_ORDER_PATH)).toBe("fast")
    expect(await send("GET", Wire.CREATE_ORDER_PATH)).toBe("app")
    expect(await send("POST", `${Wire.CREATE_ORDER_PATH}?x=1`)).toBe("app")
    expect(await send("POST", "/dev/merchants")).toBe("app")
    expect(taken).toEqual([`POST ${Wire.CREATE_ORDER_PATH}`])
    expect(reachedApp).toEqual([
      `GET ${Wire.CREATE_ORDER_PATH}`,
      `POST ${Wire.CREATE_ORDER_PATH}?x=1`,
      "POST /dev/merchants"
    ])
  })
})
