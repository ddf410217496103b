// Bounded work: for each hostile request shape, how long the event loop is held (event-loop delay,
// measured in the mock's own process with perf_hooks) does not grow with nesting depth. Depth 100
// and depth 10,000 are sent with bodies of the same size, alternately, and compared as a ratio
// against each other (no absolute wall-clock bound).
import * as Wire from "@pc/core/Wire"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { signCreateOrder, testMerchantSigner } from "./support/mock.js"
import { findSecrets } from "./support/secrets.js"
import { type Mock, startMock } from "@pc/test-support/mock"

const SHALLOW = 100
const DEEP = 10_000
/** Bytes of every body, whatever its depth: the same size, so only the depth differs. */
const BODY_BYTES = 60_000
const ROUNDS = 3
const REQUESTS = 8
/** Deep may hold the loop at most this many times as long as shallow (with a floor for timer noise). */
const RATIO = 4
const FLOOR_MS = 15

const logs: Array<string> = []
let mock: Mock
let signer: Awaited<ReturnType<typeof testMerchantSigner>>

beforeAll(async () => {
  mock = await startMock({ environment: "production" }, { logSink: (line) => logs.push(line) })
  signer = await testMerchantSigner()
})
afterAll(async () => {
  await mock?.close()
  expect(findSecrets(logs)).toEqual([])
})

/** As many arrays nested `depth` deep as fill `BODY_BYTES`, comma-separated. */
const filler = (depth: number) => {
  const one = "[".repeat(depth) + "]".repeat(depth)
  return Array.from({ length: Math.max(1, Math.floor((BODY_BYTES - 200) / (one.length + 1))) }, () => one).join(",")
}

interface Shape {
  readonly name: string
  readonly send: (depth: number) => Promise<Response>
}

const post = async (path: string, body: string, headers: Record<string, string>) =>
  fetch(`${mock.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })

const signedHeaders = async (body: string, valid: boolean) => {
  const timestamp = String(Date.now())
  const signature = valid ? await signCreateOrder(signer, { timestamp, body }) : Buffer.alloc(256, 7).toString("base64")
  return { "X-R-AK": TEST_MERCHANT_APP_KEY, "X-R-TS": timestamp, "X-R-KEY-VERSION": "1", "X-R-Signature": signature }
}

const shapes: ReadonlyArray<Shape> = [
  {
    // The request of defect 1: the public appKey, any 256-byte signature, a body of deep arrays.
    name: "bad signature, body of deep arrays (diagnosis)",
    send: async (depth) => {
      const body = `{"orderId": "bw", "x": [${filler(depth)}]}`
      return post(Wire.CREATE_ORDER_PATH, body, await signedHeaders(body, false))
    }
  },
  {
    // Defect 2: a correctly signed body whose amount nests deep (validation).
    name: "valid signature, deep amount (validation)",
    send: async (depth) => {
      const body = `{"orderId":"bw","amount":[${filler(depth)}],"currency":"USD"}`
      return post(Wire.CREATE_ORDER_PATH, body, await signedHeaders(body, true))
    }
  },
  {
    name: "developer menu body of deep arrays",
    send: (depth) => post("/dev/merchants", `{"publicKeyPem":[${filler(depth)}]}`, {})
  },
  {
    name: "deep objects, valid signature",
    send: async (depth) => {
      const d = Math.floor(depth / 2)
      const inner = '{"a":'.repeat(d) + "1" + "}".repeat(d)
      const pad = " ".repeat(Math.max(0, BODY_BYTES - 200 - inner.length))
      const body = `{"orderId":"bw","amount":"1.00","currency":"USD","x":${inner}${pad}}`
      return post(Wire.CREATE_ORDER_PATH, body, await signedHeaders(body, true))
    }
  }
]

/** The longest and mean event-loop delay (ms) while `REQUESTS` requests of `depth` are answered, 4 at a time. */
const measure = async (shape: Shape, depth: number) => {
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  histogram.enable()
  const statuses: Array<number> = []
  for (let i = 0; i < REQUESTS; i += 4) {
    const answers = await Promise.all(Array.from({ length: 4 }, () => shape.send(depth)))
    for (const answer of answers) {
      statuses.push(answer.status)
      await answer.arrayBuffer()
    }
  }
  histogram.disable()
  return { maxMs: histogram.max / 1e6, meanMs: histogram.mean / 1e6, statuses }
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

describe(`event-loop delay at depth ${DEEP} against depth ${SHALLOW}`, () => {
  it.each(shapes.map((shape) => [shape.name, shape] as const))(
    "%s",
    async (_, shape) => {
      const shallow: Array<number> = []
      const deep: Array<number> = []
      for (let round = 0; round < ROUNDS; round++) {
        const s = await measure(shape, SHALLOW)
        const d = await measure(shape, DEEP)
        for (const status of [...s.statuses, ...d.statuses]) expect(status).toBeLessThan(500)
        shallow.push(s.maxMs)
        deep.push(d.maxMs)
      }
      const [shallowMs, deepMs] = [median(shallow), median(deep)]
      console.log(
        `bounded work: ${shape.name}: longest event-loop delay, median of ${ROUNDS} rounds: depth ${SHALLOW} ${shallowMs.toFixed(1)} ms, depth ${DEEP} ${deepMs.toFixed(1)} ms (ratio ${(deepMs / shallowMs).toFixed(2)})`
      )
      expect(deepMs).toBeLessThanOrEqual(RATIO * Math.max(shallowMs, FLOOR_MS))
    },
    120_000
  )
})
