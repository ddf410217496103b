// The shared receiver keeps the exact bytes and answers as told; the endpoint hands requests to the
// test's handler and answers 500 naming why when it throws; readBody gives the bytes as sent.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { headersOf, readBody, startEndpoint, startReceiver } from "../src/index.js"

describe("startReceiver", () => {
  it("keeps each request's exact bytes and headers, answers as told, and waits for a count", async () => {
    const receiver = await startReceiver(500, { path: "/webhooks" })
    try {
      expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
      const bytes = Buffer.from([0x7b, 0xc3, 0xa9, 0xff, 0x7d])
      const first = await fetch(receiver.url, { method: "POST", headers: { "x-r-ts": "1" }, body: bytes })
      expect([first.status, await first.text()]).toEqual([500, "receiver says 500"])
      receiver.answer((_request, n) => ({
        status: 202,
        body: `#${n}`,
        headers: { "content-type": "application/json" }
      }))
      const second = await fetch(receiver.url, { method: "POST", body: "{}" })
      expect([second.status, second.headers.get("content-type"), await second.text()]).toEqual([
        202,
        "application/json",
        "#1"
      ])
      const [got] = await receiver.waitFor(1, (request) => request.headers["x-r-ts"] === "1")
      expect(Buffer.from(got!.rawBody).equals(bytes)).toBe(true)
      expect(got!.method).toBe("POST")
      expect(got!.url).toBe("/webhooks")
      await expect(receiver.waitFor(3, undefined, 50)).rejects.toThrow("3 callback request(s) at the receiver")
    } finally {
      await receiver.close()
    }
  })

  it("closes while a request hangs", async () => {
    const receiver = await startReceiver("hang")
    const pending = fetch(receiver.url, { method: "POST", body: "x" }).catch((error: unknown) => error)
    await receiver.waitFor(1)
    await receiver.close()
    expect(await pending).toBeInstanceOf(Error)
  })
})

describe("startEndpoint", () => {
  it("hands requests to the handler, and answers 500 naming why when it throws", async () => {
    const endpoint = await startEndpoint(async (req, res) => {
      const body = await readBody(req)
      if (body.length === 0) throw new Error("empty body")
      res.writeHead(200).end(`${headersOf(req)["x-r-key-version"]}:${body.toString("utf8")}`)
    })
    try {
      const ok = await fetch(endpoint.url, { method: "POST", headers: { "X-R-Key-Version": "2" }, body: "hi" })
      expect([ok.status, await ok.text()]).toEqual([200, "2:hi"])
      const failed = await fetch(endpoint.url, { method: "POST" })
      expect([failed.status, await failed.text()]).toEqual([500, "receiver failed: empty body"])
    } finally {
      await endpoint.close()
    }
  })
})

describe("readBody and headersOf", () => {
  it("read the bytes exactly as sent, and a repeated header as one value", async () => {
    const seen: Array<{ body: Buffer; headers: Record<string, string> }> = []
    const server = createServer(async (req, res) => {
      seen.push({ body: await readBody(req), headers: headersOf(req) })
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    try {
      const bytes = Buffer.from([0, 1, 0xfe, 0xff, 0x0a])
      await fetch(`http://127.0.0.1:${port}/`, {
        method: "POST",
        headers: [
          ["x-a", "1"],
          ["x-a", "2"]
        ],
        body: bytes
      })
      expect(seen[0]!.body.equals(bytes)).toBe(true)
      expect(seen[0]!.headers["x-a"]).toBe("1, 2")
    } finally {
      server.close()
    }
  })
})
