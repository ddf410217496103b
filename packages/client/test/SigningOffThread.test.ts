// Where the client signs: a call alone on the calling thread (`sign`), a call with others of the
// same client in flight off it (`signOffThread`, when the key has one), and the signatures the
// server gets are valid either way.
import { describe, expect, it } from "@effect/vitest"
import { type Crypto, KeyRing } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { Effect } from "effect"
import * as NodeHttpClient from "../src/NodeHttpClient.js"
import * as PaymentClient from "../src/PaymentClient.js"
import * as PaymentConnect from "../src/PromiseNode.js"
import { faultServer, type Reply, startFaultServer, success } from "./support/FaultServer.js"
import { APP_KEY, keyOf } from "./support/vectors.js"

const merchant = await NodeCrypto.importPrivateKey(keyOf("merchant-v1").privatePkcs8Pem)

/** A ring over the real key that records which of its two ways each signature took. */
const recordingRing = (offThread: boolean) => {
  const used: Array<"sign" | "signOffThread"> = []
  const signer: Crypto.Signer = {
    modulusLength: merchant.modulusLength,
    sign: (message) => {
      used.push("sign")
      return merchant.sign(message)
    },
    ...(offThread
      ? {
          signOffThread: (message: Crypto.Message) => {
            used.push("signOffThread")
            return merchant.signOffThread(message)
          }
        }
      : {})
  }
  return { ring: KeyRing.make({ 1: signer }), used }
}

const clientOn = (baseUrl: string, ring: KeyRing.KeyRing<Crypto.Signer>) =>
  PaymentClient.make({
    environment: "production",
    baseUrl,
    appKey: APP_KEY,
    keyRing: ring,
    retry: { maxAttempts: 1 }
  }).pipe(Effect.provide(NodeHttpClient.layer))

const orders = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => ({ orderId: `${tag}-${i}`, amount: "10.00", currency: "USD" }))

describe("PaymentClient: where a call signs", () => {
  it.scopedLive("signs a call alone on the calling thread, one after another", () =>
    Effect.gen(function* () {
      const fault = yield* faultServer((attempt) => success(attempt))
      const { ring, used } = recordingRing(true)
      const client = yield* clientOn(fault.url, ring)
      for (const input of orders(3, "alone")) yield* client.createOrder(input)
      expect(used).toEqual(["sign", "sign", "sign"])
      expect(fault.attempts.every((attempt) => attempt.signatureValid)).toBe(true)
    })
  )

  it.scopedLive("signs off the calling thread while other calls are in flight, and every signature verifies", () =>
    Effect.gen(function* () {
      const fault = yield* faultServer((attempt) => success(attempt))
      const { ring, used } = recordingRing(true)
      const client = yield* clientOn(fault.url, ring)
      yield* Effect.forEach(orders(8, "together"), (input) => client.createOrder(input), { concurrency: "unbounded" })
      // The first call may start before the others: it alone may sign on the calling thread.
      expect(used.filter((way) => way === "signOffThread").length).toBeGreaterThanOrEqual(7)
      expect(fault.attempts).toHaveLength(8)
      expect(fault.attempts.every((attempt) => attempt.signatureValid)).toBe(true)
      // All ended: the next call is alone again.
      yield* client.createOrder({ orderId: "after", amount: "10.00", currency: "USD" })
      expect(used.at(-1)).toBe("sign")
    })
  )

  it.scopedLive("counts a call that failed or was interrupted as ended", () =>
    Effect.gen(function* () {
      const refused: Reply = { kind: "envelope", status: 400, code: "paramError", msg: "amount is invalid" }
      const fault = yield* faultServer((attempt) =>
        attempt.body.includes("refused") ? refused : attempt.body.includes("hang") ? { kind: "hang" } : success(attempt)
      )
      const { ring, used } = recordingRing(true)
      const client = yield* clientOn(fault.url, ring)
      const failures = yield* Effect.forEach(orders(4, "refused"), (input) => Effect.flip(client.createOrder(input)), {
        concurrency: "unbounded"
      })
      expect(failures.map((error) => error._tag)).toEqual(Array(4).fill("InvalidRequest"))
      yield* Effect.forEach(
        orders(3, "hang"),
        (input) => client.createOrder(input, { timeout: "200 millis" }).pipe(Effect.flip),
        {
          concurrency: "unbounded"
        }
      )
      yield* client.createOrder({ orderId: "after", amount: "10.00", currency: "USD" })
      expect(used.at(-1)).toBe("sign")
    })
  )

  it.scopedLive("signs with sign alone when the key has no signOffThread (WebCrypto's keys)", () =>
    Effect.gen(function* () {
      const fault = yield* faultServer((attempt) => success(attempt))
      const { ring, used } = recordingRing(false)
      const client = yield* clientOn(fault.url, ring)
      yield* Effect.forEach(orders(6, "web"), (input) => client.createOrder(input), { concurrency: "unbounded" })
      expect(used).toEqual(Array(6).fill("sign"))
      expect(fault.attempts.every((attempt) => attempt.signatureValid)).toBe(true)
    })
  )
})

describe("Promise facade: where a call signs", () => {
  it("signs off the calling thread while other calls are in flight", async () => {
    const fault = await startFaultServer((attempt) => success(attempt))
    try {
      const { ring, used } = recordingRing(true)
      const client = await PaymentConnect.createPaymentClient({
        environment: "production",
        baseUrl: fault.url,
        appKey: APP_KEY,
        keyRing: ring
      })
      await Promise.all(orders(8, "facade").map((input) => client.createOrder(input)))
      expect(used.filter((way) => way === "signOffThread").length).toBeGreaterThanOrEqual(7)
      expect(fault.attempts.every((attempt) => attempt.signatureValid)).toBe(true)
      await client.createOrder({ orderId: "facade-after", amount: "10.00", currency: "USD" })
      expect(used.at(-1)).toBe("sign")
    } finally {
      await fault.close()
    }
  })
})
