import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { readBody } from "@pc/test-support"
import { Chunk, Effect, Option, Stream } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as NodeHttpClient from "../src/NodeHttpClient.js"

interface Seen {
  readonly method: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  /** The client side port of the connection. */
  readonly port: number | undefined
}

/** A server on 127.0.0.1 that records each request and answers as `answer` says; closed with the scope. */
const server = (answer: (req: IncomingMessage, res: ServerResponse, body: string) => void) =>
  Effect.gen(function* () {
    const seen: Array<Seen> = []
    const closed: Array<string> = []
    const http = createServer((req, res) => {
      void readBody(req).then((raw) => {
        const body = raw.toString("utf8")
        seen.push({ method: req.method ?? "", headers: req.headers, body, port: req.socket.remotePort })
        answer(req, res, body)
      })
      res.on("close", () => closed.push(req.url ?? ""))
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void http.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          http.closeAllConnections()
          http.close(() => resume(Effect.void))
        })
    )
    return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, seen, closed }
  })

const client = Effect.provide(HttpClient.HttpClient, NodeHttpClient.layer)

describe("NodeHttpClient", () => {
  it.scopedLive(
    "sends method, headers and a Uint8Array body; reads status, headers, cookies and the body once for every accessor",
    () =>
      Effect.gen(function* () {
        const { url, seen } = yield* server((_req, res, body) => {
          res.setHeader("content-type", "application/json; charset=utf-8")
          res.setHeader("set-cookie", ["a=1", "b=2"])
          res.setHeader("x-echo", "é")
          res.statusCode = 201
          res.end(JSON.stringify({ echoed: body, text: "größe" }))
        })
        const http = yield* client
        const response = yield* http.execute(
          HttpClientRequest.post(`${url}/orders?x=1`).pipe(
            HttpClientRequest.setHeader("x-r-ak", "key"),
            HttpClientRequest.bodyUint8Array(new TextEncoder().encode('{"n":1}'), "application/json")
          )
        )
        expect(response.status).toBe(201)
        expect(response.headers["content-type"]).toBe("application/json; charset=utf-8")
        expect(response.cookies.cookies.a?.value).toBe("1")
        expect(response.cookies.cookies.b?.value).toBe("2")
        expect(yield* response.json).toEqual({ echoed: '{"n":1}', text: "größe" })
        // The body is kept: a second reader gets the same text.
        expect(yield* response.text).toBe(JSON.stringify({ echoed: '{"n":1}', text: "größe" }))
        expect(new TextDecoder().decode(yield* response.arrayBuffer)).toContain("größe")
        expect(Option.isSome(response.remoteAddress)).toBe(true)
        expect(seen).toHaveLength(1)
        expect(seen[0]!.method).toBe("POST")
        expect(seen[0]!.headers["x-r-ak"]).toBe("key")
        expect(seen[0]!.headers["content-type"]).toBe("application/json")
        expect(seen[0]!.headers["content-length"]).toBe("7")
      })
  )

  it.scopedLive("streams a request body and a response body", () =>
    Effect.gen(function* () {
      const { url, seen } = yield* server((_req, res, body) => {
        res.write(body.toUpperCase())
        res.end("!")
      })
      const http = yield* client
      const parts = ["one ", "two ", "three"].map((part) => new TextEncoder().encode(part))
      const response = yield* http.execute(
        HttpClientRequest.post(url).pipe(HttpClientRequest.bodyStream(Stream.fromIterable(parts)))
      )
      const chunks = yield* Stream.runCollect(response.stream)
      const text = Chunk.toReadonlyArray(chunks)
        .map((chunk) => new TextDecoder().decode(chunk))
        .join("")
      expect(text).toBe("ONE TWO THREE!")
      expect(seen[0]!.body).toBe("one two three")
    })
  )

  it.scopedLive("sends a FormData body as multipart with its boundary", () =>
    Effect.gen(function* () {
      const { url, seen } = yield* server((_req, res) => res.end("ok"))
      const http = yield* client
      const form = new FormData()
      form.set("orderId", "M-1001")
      const response = yield* http.execute(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyFormData(form)))
      expect(yield* response.text).toBe("ok")
      expect(seen[0]!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/)
      expect(seen[0]!.body).toContain('name="orderId"')
      expect(seen[0]!.body).toContain("M-1001")
    })
  )

  it.scopedLive("reuses one connection for requests one after another (keep-alive)", () =>
    Effect.gen(function* () {
      const { url, seen } = yield* server((_req, res) => res.end("ok"))
      const http = yield* client
      for (let i = 0; i < 5; i++) {
        const response = yield* http.get(url)
        expect(yield* response.text).toBe("ok")
      }
      expect(seen).toHaveLength(5)
      expect(new Set(seen.map((request) => request.port)).size).toBe(1)
    })
  )

  it.scopedLive("an interrupted request closes its connection", () =>
    Effect.gen(function* () {
      const { url, seen, closed } = yield* server(() => {
        // never answers
      })
      const http = yield* client
      const result = yield* http.get(`${url}/hang`).pipe(Effect.timeoutOption("50 millis"))
      expect(Option.isNone(result)).toBe(true)
      // The server sees the connection go: a signal, not a sleep.
      yield* Effect.async<void>((resume) => {
        const check = setInterval(() => {
          if (closed.includes("/hang")) {
            clearInterval(check)
            resume(Effect.void)
          }
        }, 5)
      })
      expect(seen).toHaveLength(1)
    })
  )

  it.scopedLive("a refused connection fails with a RequestError of reason Transport", () =>
    Effect.gen(function* () {
      const port = yield* Effect.async<number>((resume) => {
        const probe = createServer()
        probe.listen(0, "127.0.0.1", () => {
          const { port } = probe.address() as AddressInfo
          probe.close(() => resume(Effect.succeed(port)))
        })
      })
      const http = yield* client
      const error = yield* Effect.flip(http.get(`http://127.0.0.1:${port}/`))
      expect(error._tag).toBe("RequestError")
      expect(error.reason).toBe("Transport")
    })
  )

  it.scopedLive("a connection reset in the middle of the body fails the body read with a ResponseError", () =>
    Effect.gen(function* () {
      const { url } = yield* server((_req, res) => {
        res.setHeader("content-length", "100")
        res.write("partial")
        setTimeout(() => res.destroy(), 10)
      })
      const http = yield* client
      const response = yield* http.get(url)
      const error = yield* Effect.flip(response.text)
      expect(error._tag).toBe("ResponseError")
      expect(error.reason).toBe("Decode")
    })
  )
})
