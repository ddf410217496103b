// The HTTP sender (Sender.ts) against real servers on 127.0.0.1: what it reads of an answer, its
// time limit, and its refusal to send to the mock's own listening address.
import { Effect, Exit, Scope } from "effect"
import { createServer, type RequestListener, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { afterEach, describe, expect, it } from "vitest"
import { EXCERPT, type PostResult, REACHES_SELF, type Sender, makeHttpSender } from "../src/callbacks/Sender.js"
import type { SelfAddress } from "../src/config/UrlRule.js"

const servers: Array<Server> = []
const scopes: Array<Scope.CloseableScope> = []

afterEach(async () => {
  for (const scope of scopes.splice(0)) await Effect.runPromise(Scope.close(scope, Exit.void))
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A server on 127.0.0.1 that counts the requests it is sent. */
const serve = async (
  listener: RequestListener
): Promise<{ readonly port: number; readonly requests: () => number }> => {
  let requests = 0
  const server = createServer((request, response) => {
    requests++
    listener(request, response)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { port: (server.address() as AddressInfo).port, requests: () => requests }
}

const sender = async (self: SelfAddress, timeoutMs = 2_000): Promise<Sender> => {
  const scope = await Effect.runPromise(Scope.make())
  scopes.push(scope)
  return Effect.runPromise(Scope.extend(makeHttpSender({ timeoutMs, maxSockets: 8, self }), scope))
}

/** Nowhere this test listens. */
const elsewhere: SelfAddress = { port: 1, listenHost: "127.0.0.1", publicUrl: "http://127.0.0.1:1" }

/** A full GC, made callable here without a flag on the test process's command line. */
const fullGc = (): (() => void) => {
  setFlagsFromString("--expose-gc")
  return runInNewContext("gc") as () => void
}

const post = (to: Sender, url: string, body = "{}") =>
  new Promise<PostResult>((resolve) => to.post(url, { "content-type": "application/json" }, body, resolve))

describe("the HTTP sender", () => {
  it("POSTs the body with its headers and reads the status and the start of the answer", async () => {
    let received = ""
    const merchant = await serve((request, response) => {
      request.setEncoding("utf8")
      request.on("data", (chunk: string) => (received += chunk))
      request.on("end", () => response.writeHead(500).end("x".repeat(5_000)))
    })
    const result = await post(await sender(elsewhere), `http://127.0.0.1:${merchant.port}/notify`, '{"a":1}')
    expect(result).toEqual({ status: 500, excerpt: "x".repeat(EXCERPT) })
    expect(received).toBe('{"a":1}')
  })

  it("reads an answer sent in pieces, with characters of several bytes, as its text", async () => {
    const merchant = await serve((request, response) => {
      request.resume()
      request.on("end", () => {
        response.writeHead(503, { "content-type": "text/plain; charset=utf-8" })
        // "é" split across two writes: the excerpt joins its bytes again.
        const text = Buffer.from("busy: réessayez ⏳", "utf8")
        const cut = text.indexOf(0xa9)
        response.write(text.subarray(0, cut))
        setTimeout(() => response.end(text.subarray(cut)), 20)
      })
    })
    const result = await post(await sender(elsewhere), `http://127.0.0.1:${merchant.port}/`)
    expect(result).toEqual({ status: 503, excerpt: "busy: réessayez ⏳" })
  })

  it("leaves a leading byte order mark out of the excerpt", async () => {
    const merchant = await serve((request, response) => {
      request.resume()
      request.on("end", () => response.writeHead(500).end(Buffer.from("\ufeffFAIL: no such order", "utf8")))
    })
    expect(await post(await sender(elsewhere), `http://127.0.0.1:${merchant.port}/`)).toEqual({
      status: 500,
      excerpt: "FAIL: no such order"
    })
  })

  it("reads an empty answer as an empty excerpt", async () => {
    const merchant = await serve((request, response) => {
      request.resume()
      request.on("end", () => response.writeHead(500).end())
    })
    expect(await post(await sender(elsewhere), `http://127.0.0.1:${merchant.port}/`)).toEqual({
      status: 500,
      excerpt: ""
    })
  })

  it("gives up on an endpoint that does not answer within its time", async () => {
    const merchant = await serve(() => {})
    const result = await post(await sender(elsewhere, 150), `http://127.0.0.1:${merchant.port}/`)
    expect(result).toEqual({ error: "no answer within 150 ms" })
  })

  it("cancelled, calls nothing back and closes the connection without waiting for the answer", async () => {
    let closed!: () => void
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve
    })
    const merchant = await serve((request) => request.socket.once("close", closed))
    const results: Array<PostResult> = []
    const cancel = (await sender(elsewhere, 5_000)).post(`http://127.0.0.1:${merchant.port}/`, {}, "{}", (result) =>
      results.push(result)
    )
    while (merchant.requests() === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    cancel()
    await connectionClosed
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(results).toEqual([])
  })

  it("once an attempt has ended, keeps nothing of it in what stays reachable of the attempt (its cancel)", async () => {
    const gc = fullGc()
    const merchant = await serve((_request, response) => response.end("ok"))
    const to = await sender(elsewhere)
    // The record an attempt's callback carries, as the dispatcher's does; only a weak reference kept here.
    let record: WeakRef<object> | undefined
    let cancel: (() => void) | undefined
    await new Promise<void>((resolve) => {
      const held = { deliveryId: "dlv_1", body: "x".repeat(10_000) }
      record = new WeakRef(held)
      cancel = to.post(`http://127.0.0.1:${merchant.port}/`, {}, "{}", () => {
        if (held.deliveryId === "dlv_1") resolve()
      })
    })
    // Past the answer's own turns: what node:http still runs after the callback has ended.
    await new Promise((resolve) => setTimeout(resolve, 50))
    gc()
    expect(cancel).toBeTypeOf("function")
    expect(record?.deref()).toBeUndefined()
  })

  it("says why when nothing listens", async () => {
    const gone = await serve(() => {})
    const port = gone.port
    const server = servers.pop()!
    await new Promise((resolve) => server.close(resolve))
    const result = await post(await sender(elsewhere), `http://127.0.0.1:${port}/`)
    expect(result).toMatchObject({ error: expect.stringMatching(/^request failed: .*ECONNREFUSED/) })
  })

  it("refuses to send to the mock's own address, whatever name leads there, before a byte is written", async () => {
    const mock = await serve((_request, response) => response.end("ran"))
    const self = { port: mock.port, listenHost: "127.0.0.1", publicUrl: "http://example.test" }
    const to = await sender(self)
    for (const host of ["localhost", "127.0.0.1", "[::ffff:127.0.0.1]"]) {
      expect(await post(to, `http://${host}:${mock.port}/dev/platform-keys/rotate`)).toEqual({ error: REACHES_SELF })
    }
    expect(mock.requests()).toBe(0)
  })

  it("bound to every address: refuses the mock on its port, and still sends (on a kept-alive connection) to another server here", async () => {
    const merchant = await serve((_request, response) => response.end("ok"))
    const mock = await serve((_request, response) => response.end("ran"))
    const to = await sender({ port: mock.port, listenHost: "0.0.0.0", publicUrl: "http://example.test" })
    expect(await post(to, `http://localhost:${merchant.port}/`)).toEqual({ status: 200, excerpt: "ok" })
    expect(await post(to, `http://localhost:${merchant.port}/`)).toEqual({ status: 200, excerpt: "ok" })
    expect(await post(to, `http://localhost:${mock.port}/`)).toEqual({ error: REACHES_SELF })
    expect(await post(to, `http://localhost:${mock.port}/`)).toEqual({ error: REACHES_SELF })
    expect(merchant.requests()).toBe(2)
    expect(mock.requests()).toBe(0)
  })
})
