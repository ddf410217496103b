// The create-order fast path runs plain steps in Node's callbacks, not on a fiber. A defect there (a
// flow that throws at once, or whose Promise rejects) is answered internalError (500) with the
// request id, as a fiber's defect is on the HttpApi path, and the server goes on serving. The flow
// is replaced by one that fails on purpose: no input is known to make the real one throw.
import * as Wire from "@pc/core/Wire"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeCreateOrderFastPath, withFastPath } from "../src/server/CreateOrderFastPath.js"
import { paramError } from "../src/domain/ApiError.js"
import { CreateOrderFlow } from "../src/domain/orders/CreateOrderFlow.js"

const failingFlow = Layer.succeed(CreateOrderFlow, {
  create: ({ bytes }) => {
    const text = Buffer.from(bytes).toString("utf8")
    if (text === "throw now") throw new Error("thrown by a plain step")
    if (text === "reject later") return Promise.reject(new Error("rejected by a verification"))
    return { answer: paramError("orderId: missing"), headers: undefined, note: undefined }
  }
})

let server: Server
let url: string
const events: Array<{ readonly status: number }> = []

beforeAll(async () => {
  const fastPath = await Effect.runPromise(
    makeCreateOrderFastPath({ bodyLimitBytes: 1024, publishNow: (event) => void events.push(event as never) }).pipe(
      Effect.provide(failingFlow),
      Logger.withMinimumLogLevel(LogLevel.None)
    )
  )
  server = withFastPath(createServer(), fastPath)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${Wire.CREATE_ORDER_PATH}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const send = async (body: string) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })
  return { status: response.status, requestId: response.headers.get("x-request-id"), json: await response.json() }
}

describe("a defect on the create-order fast path", () => {
  it.each(["throw now", "reject later"])("(%s) is answered internalError, and the server goes on", async (body) => {
    const failed = await send(body)
    expect(failed.status).toBe(500)
    expect(failed.json).toMatchObject({ code: "internalError", data: null })
    expect(failed.requestId).toMatch(/^[0-9a-f-]{36}$/)
    const next = await send("{}")
    expect(next.status).toBe(400)
    expect(next.json).toMatchObject({ code: "paramError", msg: "orderId: missing" })
    expect(events.slice(-2).map((event) => event.status)).toStrictEqual([500, 400])
  })
})
