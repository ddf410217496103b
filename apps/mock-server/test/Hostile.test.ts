// The defects of issue 9, each over real HTTP on 127.0.0.1 against a production mock: deep JSON,
// answers Node's parser gives before any route (Expect, Host, CONNECT, duplicate headers), a notify
// URL that points at the mock itself, and header values and paths copied whole into the log.
import * as Wire from "@pc/core/Wire"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { type RawAnswer, rawExchange, requestBytes } from "./support/raw.js"
import { type Mock, startMock } from "@pc/test-support/mock"

const logs: Array<string> = []
let mock: Mock
let port: number

beforeAll(async () => {
  mock = await startMock({ environment: "production" }, { logSink: (line) => logs.push(line) })
  port = Number(new URL(mock.url).port)
})
afterAll(async () => {
  await mock?.close()
})

/** The answer as the envelope with a request id, its status and code as CONTRACT.md pairs them. */
const expectEnvelope = (answer: RawAnswer, status: number, code: string) => {
  if (answer.kind !== "answer") throw new Error(`no answer (${answer.kind}): ${JSON.stringify(answer.received)}`)
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status })
  expect(answer.headers["content-type"]).toMatch(/^application\/json/)
  expect(answer.headers["x-request-id"]).toMatch(/\S/)
  const envelope = JSON.parse(answer.body) as { code: string; msg: string | null; data: unknown }
  expect(envelope).toMatchObject({ code, data: null })
  expect(typeof envelope.msg).toBe("string")
  return envelope.msg!
}

const nested = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth)

describe("JSON nested deeper than 64 levels", () => {
  it("is a paramError naming the field, for a correctly signed body, at any depth", async () => {
    for (const depth of [65, 2_200, 9_000]) {
      const body = `{"orderId":"deep-${depth}","amount":${nested(depth)},"currency":"USD"}`
      const answer = await createOrder(mock.url, body)
      expect({ depth, status: answer.status, json: answer.json }).toMatchObject({
        status: 400,
        json: { code: "paramError" }
      })
      expect(answer.json.msg).toMatch(/^amount: .*64/)
    }
  })

  it("accepts 64 levels, where the field is still judged by its own rule", async () => {
    const answer = await createOrder(
      mock.url,
      `{"orderId":"deep-ok","amount":"1.00","currency":"USD","x":${nested(63)}}`
    )
    expect(answer.json.code).toBe("SUCCESS")
  })

  it("is a paramError on a /dev body too", async () => {
    const answer = await dev(mock.url, "POST", "/dev/merchants", JSON.parse(`{"publicKeyPem":${nested(100, '"x"')}}`))
    expect(answer.status).toBe(400)
    expect(answer.json.msg).toMatch(/^publicKeyPem: .*64/)
  })
})

describe("answers Node's HTTP parser decides before any route", () => {
  const post = (headers: ReadonlyArray<readonly [string, string]>, body = "{}") =>
    requestBytes(
      "POST",
      Wire.CREATE_ORDER_PATH,
      [...headers, ["Content-Length", String(Buffer.byteLength(body))]],
      body
    )

  it.each([
    [
      "an unknown Expect",
      post([
        ["Host", `127.0.0.1:${port}`],
        ["Content-Type", "application/json"],
        ["Expect", "x"]
      ]),
      417,
      "paramError",
      /Expect/
    ],
    ["an HTTP/1.1 request without Host", requestBytes("GET", "/healthz", []), 400, "paramError", /Host/],
    [
      "two Host headers (RFC 9112 3.2)",
      requestBytes("GET", "/healthz", [
        ["Host", "a"],
        ["Host", "b"]
      ]),
      400,
      "paramError",
      /Host/
    ],
    [
      "two Content-Type headers, not first-wins",
      post([
        ["Host", `127.0.0.1:${port}`],
        ["Content-Type", "application/json"],
        ["Content-Type", "text/plain"]
      ]),
      415,
      "unsupportedMediaType",
      /Content-Type/
    ]
  ] as const)("%s is refused with its status and code", async (_, bytes, status, code, msg) => {
    expect(expectEnvelope(await rawExchange(port, bytes), status, code)).toMatch(msg)
  })

  it("CONNECT is 405 methodNotAllowed, not a silently closed connection", async () => {
    expectEnvelope(
      await rawExchange(port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
      405,
      "methodNotAllowed"
    )
  })

  it("broken chunked framing is 400 paramError", async () => {
    const raw = `POST ${Wire.CREATE_ORDER_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`
    expectEnvelope(await rawExchange(port, raw), 400, "paramError")
  })

  it("the server is still up and answering afterwards", async () => {
    expectEnvelope(
      await rawExchange(port, requestBytes("GET", "/nowhere", [["Host", `127.0.0.1:${port}`]])),
      404,
      "notFound"
    )
  })
})

describe("a notify URL that points at the mock itself", () => {
  it("is a paramError, whichever name of this host and port it uses", async () => {
    const self = [
      `${mock.url}/dev/platform-keys/rotate`,
      `http://localhost:${port}/dev/platform-keys/rotate`,
      `http://127.0.0.2:${port}/x`,
      `http://[::1]:${port}/x`,
      `http://0.0.0.0:${port}/x`,
      `http://LOCALHOST.:${port}/x`
    ]
    for (const notifyUrl of self) {
      const answer = await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl })
      expect({ notifyUrl, status: answer.status, code: answer.json.code }).toEqual({
        notifyUrl,
        status: 400,
        code: "paramError"
      })
      expect(answer.json.msg).toMatch(/^notifyUrl: /)
    }
    const created = await dev(mock.url, "POST", "/dev/merchants", {
      publicKeyPem: "irrelevant",
      notifyUrl: `http://localhost:${port}/`
    })
    expect(created.status).toBe(400)
  })

  it("accepts another port on the same host", async () => {
    const answer = await dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
      notifyUrl: `http://127.0.0.1:${port === 65_535 ? port - 1 : port + 1}/callbacks`
    })
    expect(answer.json.code).toBe("SUCCESS")
  })
})

describe("log lines", () => {
  it("carry at most a capped excerpt of a header value or a path", async () => {
    const filler = "Q".repeat(15_000)
    await createOrder(mock.url, '{"orderId":"cap","amount":"1.00","currency":"USD"}', {
      extraHeaders: { "X-R-Signature": `${"A".repeat(342)}==`, "Content-Type": `application/json; x=${filler}` }
    })
    await rawExchange(port, requestBytes("GET", `/${"P".repeat(7_000)}`, [["Host", `127.0.0.1:${port}`]]))
    await createOrder(mock.url, "{}", { appKey: `${TEST_MERCHANT_APP_KEY}${filler}` })
    const longest = Math.max(...logs.map((line) => Math.max(...[/Q+/g, /P+/g].map((re) => longestRun(line, re)))))
    expect(logs.length).toBeGreaterThan(0)
    expect(longest).toBeLessThanOrEqual(200)
  })
})

const longestRun = (line: string, pattern: RegExp): number =>
  Math.max(0, ...Array.from(line.matchAll(pattern), (match) => match[0].length))
