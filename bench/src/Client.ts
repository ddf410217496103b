// What the client adds to a call: `createOrder` through the Effect client and the Promise facade
// against a hand-written `fetch` + node:crypto call, all to the same bare verifying server (its own
// process), at 32 in flight and one at a time, in alternating rounds. Every call signs (that is
// part of all three), so the difference is the client's own work.
import { FetchHttpClient } from "@effect/platform"
import { PaymentClient, Promise as PaymentConnect } from "@pc/client"
import { NodeCrypto } from "@pc/crypto-node"
import { Effect, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { signCreate } from "./Orders.js"
import { atLeast, atMost, type SuiteResult } from "./Results.js"
import { CREATE_ORDER_PATH, startBare, TEST_MERCHANT_APP_KEY, testMerchantKeyFile } from "./Servers.js"
import { median, round } from "./Stats.js"

type Call = (orderId: string) => Promise<unknown>

/** Calls per second for `calls` calls, `inFlight` at a time. */
const rate = async (call: Call, calls: number, inFlight: number, tag: string): Promise<number> => {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < calls) await call(`${tag}-${next++}`)
    })
  )
  return calls / ((performance.now() - start) / 1000)
}

export const clientSuite = async (options: {
  readonly rounds: number
  readonly callsInFlight: number
  readonly callsOneAtATime: number
}): Promise<SuiteResult> => {
  const server = await startBare()
  try {
    const privateKeyPem = readFileSync(testMerchantKeyFile("private"), "utf8")
    const common = { environment: "production", baseUrl: server.url, appKey: TEST_MERCHANT_APP_KEY } as const
    const effectClient = await Effect.runPromise(
      PaymentClient.make({ ...common, crypto: NodeCrypto, privateKeys: { 1: Redacted.make(privateKeyPem) } }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
    )
    const promiseClient = await PaymentConnect.createPaymentClient({
      ...common,
      crypto: NodeCrypto,
      privateKeys: { 1: privateKeyPem }
    })
    const input = (orderId: string) => ({ orderId, amount: "10.00", currency: "USD" })
    const calls: Record<"hand" | "effect" | "promise", Call> = {
      hand: async (orderId) => {
        const body = JSON.stringify(input(orderId))
        const response = await fetch(`${server.url}${CREATE_ORDER_PATH}`, {
          method: "POST",
          headers: signCreate(body),
          body
        })
        const envelope = (await response.json()) as { code: string; data: unknown }
        if (envelope.code !== "SUCCESS") throw new Error(`hand-written call got ${envelope.code}`)
        return envelope.data
      },
      effect: (orderId) => Effect.runPromise(effectClient.createOrder(input(orderId))),
      promise: (orderId) => promiseClient.createOrder(input(orderId))
    }
    // Warm every path (JIT, keep-alive sockets).
    for (const [name, call] of Object.entries(calls)) await rate(call, 32, 8, `warm-${name}`)

    const many: Record<string, Array<number>> = { hand: [], effect: [], promise: [] }
    const oneMs: Record<string, Array<number>> = { hand: [], effect: [], promise: [] }
    for (let round = 0; round < options.rounds; round++) {
      for (const [name, call] of Object.entries(calls)) {
        many[name]!.push(await rate(call, options.callsInFlight, 32, `${name}-${round}`))
      }
      for (const [name, call] of Object.entries(calls)) {
        oneMs[name]!.push(1000 / (await rate(call, options.callsOneAtATime, 1, `${name}-one-${round}`)))
      }
    }
    const ratio = (name: string) => median(many[name]!.map((value, i) => value / many.hand![i]!))
    const added = (name: string) => median(oneMs[name]!.map((value, i) => value - oneMs.hand![i]!))
    return {
      targets: {
        "Effect client/hand-written calls/s, 32 in flight": atLeast(
          ratio("effect"),
          0.95,
          "x",
          "createOrder through PaymentClient (NodeCrypto, FetchHttpClient) over fetch + node:crypto, median of per-round ratios"
        ),
        "Promise facade/hand-written calls/s, 32 in flight": atLeast(
          ratio("promise"),
          0.95,
          "x",
          "createOrder through createPaymentClient (NodeCrypto) over fetch + node:crypto"
        ),
        "Effect client added per call, one at a time": atMost(
          added("effect"),
          0.3,
          "ms",
          "mean call time minus the hand-written call's, median of per-round differences"
        ),
        "Promise facade added per call, one at a time": atMost(added("promise"), 0.3, "ms", "the same for the facade")
      },
      figures: {
        callsPerSecondInFlight32: Object.fromEntries(
          Object.entries(many).map(([name, values]) => [name, values.map((v) => round(v, 0))])
        ),
        msPerCallOneAtATime: Object.fromEntries(
          Object.entries(oneMs).map(([name, values]) => [name, values.map((v) => round(v, 3))])
        )
      }
    }
  } finally {
    await server.stop()
  }
}
