// Security round 3 (issue 32), points 4 and 5, sent as an attacker would, over raw sockets: the
// header block past Node's 2000 headers, and framing errors on routes that take no body.
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { rawExchange, requestBytes } from "./support/raw.js"

let mock: RunningMock
let port: number

beforeAll(async () => {
  mock = await startMock()
  port = Number(new URL(mock.listenUrl).port)
})
afterAll(() => mock?.close())

/** Everything the server sends on one connection until it closes it (or `timeoutMs` passes). */
const wholeConversation = (
  bytes: string,
  timeoutMs = 3_000
): Promise<{ readonly text: string; readonly closed: boolean }> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    let text = ""
    const timer = setTimeout(() => {
      socket.destroy()
      resolve({ text, closed: false })
    }, timeoutMs)
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1")
    })
    socket.on("close", () => {
      clearTimeout(timer)
      resolve({ text, closed: true })
    })
    socket.on("error", () => undefined)
    socket.write(Buffer.from(bytes, "latin1"))
  })

const answersIn = (text: string): number => text.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0

describe("one request, one answer (issue 32, point 5)", () => {
  const host = () => `Host: 127.0.0.1:${port}\r\n`
  const cases: ReadonlyArray<readonly [string, () => string]> = [
    [
      "a bad chunk size on a route of another method",
      () => `POST /healthz HTTP/1.1\r\n${host()}Transfer-Encoding: chunked\r\n\r\nzz\r\n`
    ],
    [
      "a bad chunk size on a GET route",
      () => `GET /healthz HTTP/1.1\r\n${host()}Transfer-Encoding: chunked\r\n\r\nzz\r\n`
    ],
    [
      "Transfer-Encoding: xchunked on a route of another method",
      () => `POST /healthz HTTP/1.1\r\n${host()}Transfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`
    ],
    [
      "Transfer-Encoding: xchunked on a GET route",
      () => `GET /dev/orders HTTP/1.1\r\n${host()}Transfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`
    ],
    [
      "a bad chunk size on an unknown route",
      () => `DELETE /nowhere HTTP/1.1\r\n${host()}Transfer-Encoding: chunked\r\n\r\n-1\r\n`
    ]
  ]
  for (const [name, bytes] of cases) {
    it(`${name}: exactly one answer, then the connection is closed`, async () => {
      const { text, closed } = await wholeConversation(bytes())
      expect(answersIn(text), text).toBe(1)
      expect(closed).toBe(true)
      expect(text).toMatch(/"code":"(paramError|methodNotAllowed|notFound)"/)
    })
  }
})

describe("more headers than the mock reads (issue 32, point 4)", () => {
  const filler = (count: number): Array<readonly [string, string]> =>
    Array.from({ length: count }, (_, i) => [`x-f${i}`, "1"] as const)

  it("a second X-R-AK after 2,100 filler headers is refused 431 paramError, not cut off", async () => {
    const answer = await rawExchange(
      port,
      requestBytes("GET", "/healthz", [["Host", `127.0.0.1:${port}`], ...filler(2100), ["X-R-AK", "second"]])
    )
    expect(answer.kind).toBe("answer")
    if (answer.kind !== "answer") return
    expect(answer.status).toBe(431)
    expect(JSON.parse(answer.body)).toMatchObject({ code: "paramError", data: null })
  })

  it("exactly 2000 headers are read and answered as usual", async () => {
    const answer = await rawExchange(
      port,
      requestBytes("GET", "/healthz", [["Host", `127.0.0.1:${port}`], ...filler(1999)])
    )
    expect(answer).toMatchObject({ kind: "answer", status: 200 })
  })

  it("2001 headers are refused", async () => {
    const answer = await rawExchange(
      port,
      requestBytes("GET", "/healthz", [["Host", `127.0.0.1:${port}`], ...filler(2000)])
    )
    expect(answer).toMatchObject({ kind: "answer", status: 431 })
  })

  it("a header block larger than the mock reads is refused 431 paramError", async () => {
    const answer = await rawExchange(
      port,
      requestBytes("GET", "/healthz", [
        ["Host", `127.0.0.1:${port}`],
        ["x-big", "a".repeat(20_000)]
      ])
    )
    expect(answer.kind).toBe("answer")
    if (answer.kind !== "answer") return
    expect(answer.status).toBe(431)
    expect(JSON.parse(answer.body)).toMatchObject({ code: "paramError", data: null })
  })
})
