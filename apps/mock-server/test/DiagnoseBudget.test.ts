// A flood of bad signatures is not diagnosed one by one (src/domain/auth/MerchantAuth.ts): at most
// DIAGNOSES_PER_SECOND refusals a second get their likely cause worked out, the rest are refused alike.
import { Canonical } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { DIAGNOSES_PER_SECOND, MerchantAuth } from "../src/domain/auth/MerchantAuth.js"
import { defaults, MockConfig } from "../src/config/Config.js"
import * as Step from "../src/domain/Step.js"
import { Store } from "../src/store/Store.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem, testMerchantPublicKeyPem } from "../src/main/TestMerchant.js"

const PATH = "/openapi/v2/order/create"

describe("diagnosis of refused signatures", () => {
  it(`works out the likely cause of ${DIAGNOSES_PER_SECOND} refusals a second, and refuses the rest alike without it`, async () => {
    const nowMs = Date.UTC(2026, 10, 23, 12, 0, 0, 100)
    const signer = await NodeCrypto.importPrivateKey(testMerchantPrivateKeyPem())
    const timestamp = String(nowMs)
    const signedBody = '{"orderId":"M-1","amount":"10.00","currency":"USD"}'
    // Signed over the compact body, sent pretty-printed: a mistake the diagnosis names.
    const sentBody = JSON.stringify(JSON.parse(signedBody), null, 2)
    const signature = await signer.sign(
      Canonical.requestStringToSign({
        method: "POST",
        path: PATH,
        appKey: TEST_MERCHANT_APP_KEY,
        timestamp,
        body: signedBody
      })
    )
    const input = {
      method: "POST",
      path: PATH,
      body: sentBody,
      headers: {
        "x-r-ak": TEST_MERCHANT_APP_KEY,
        "x-r-ts": timestamp,
        "x-r-key-version": "1",
        "x-r-signature": signature
      }
    }
    const program = Effect.gen(function* () {
      const store = yield* Store
      yield* store.ensureMerchant({ appKey: TEST_MERCHANT_APP_KEY, publicKeyPem: testMerchantPublicKeyPem(), nowMs })
      const auth = yield* MerchantAuth
      const within = []
      for (let i = 0; i < DIAGNOSES_PER_SECOND + 5; i++)
        within.push(yield* Step.toEffect(auth.authenticate(input, nowMs)))
      // The next second has its own budget.
      const next = yield* Step.toEffect(auth.authenticate(input, nowMs + 1_000))
      return { within, next }
    })
    const layer = MerchantAuth.layer.pipe(
      Layer.provideMerge(Store.sqlite(":memory:")),
      Layer.provide(Layer.succeed(MockConfig, { ...defaults, environment: "production", port: 0, db: ":memory:" }))
    )
    const { within, next } = await Effect.runPromise(Effect.scoped(Effect.provide(program, layer)))
    for (const result of [...within, next]) {
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.error.code).toBe("signError")
    }
    const likely = within.map((result) => result.note.likelyCause)
    expect(
      likely.slice(0, DIAGNOSES_PER_SECOND).every((cause) => /re-serialised after signing/.test(cause ?? ""))
    ).toBe(true)
    expect(likely.slice(DIAGNOSES_PER_SECOND)).toStrictEqual([null, null, null, null, null])
    expect(next.note.likelyCause).toMatch(/re-serialised after signing/)
  })

  it("always names the causes the headers show, and refusals for appKeys without keys spend none of the budget", async () => {
    const nowMs = Date.UTC(2026, 10, 23, 12, 0, 0, 100)
    const signer = await NodeCrypto.importPrivateKey(testMerchantPrivateKeyPem())
    const body = '{"orderId":"M-2","amount":"10.00","currency":"USD"}'
    const refusal = (appKey: string, timestamp: string, signature: string) => ({
      method: "POST",
      path: PATH,
      body,
      headers: { "x-r-ak": appKey, "x-r-ts": timestamp, "x-r-key-version": "1", "x-r-signature": signature }
    })
    // Signed over another body: only trying the merchant's key finds that out.
    const otherBody = await signer.sign(
      Canonical.requestStringToSign({
        method: "POST",
        path: PATH,
        appKey: TEST_MERCHANT_APP_KEY,
        timestamp: String(nowMs),
        body: body.replace("M-2", "M-3")
      })
    )
    const needsKeys = refusal(TEST_MERCHANT_APP_KEY, String(nowMs), otherBody)
    const inSeconds = refusal(TEST_MERCHANT_APP_KEY, String(Math.floor(nowMs / 1000)), otherBody)
    const program = Effect.gen(function* () {
      const store = yield* Store
      yield* store.ensureMerchant({ appKey: TEST_MERCHANT_APP_KEY, publicKeyPem: testMerchantPublicKeyPem(), nowMs })
      const auth = yield* MerchantAuth
      const likelyOf = (input: ReturnType<typeof refusal>) =>
        Effect.map(Step.toEffect(auth.authenticate(input, nowMs)), (result) =>
          result.ok ? "accepted" : result.note.likelyCause
        )
      // Made-up appKeys, many more than the budget: no merchant, no keys to try.
      const anonymous = []
      for (let i = 0; i < DIAGNOSES_PER_SECOND * 3; i++)
        anonymous.push(
          yield* likelyOf(refusal(`00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, String(nowMs), otherBody))
        )
      const firstWithKeys = yield* likelyOf(needsKeys)
      for (let i = 1; i < DIAGNOSES_PER_SECOND; i++) yield* likelyOf(needsKeys)
      const overBudget = yield* likelyOf(needsKeys)
      const secondsOverBudget = yield* likelyOf(inSeconds)
      return { anonymous, firstWithKeys, overBudget, secondsOverBudget }
    })
    const layer = MerchantAuth.layer.pipe(
      Layer.provideMerge(Store.sqlite(":memory:")),
      Layer.provide(Layer.succeed(MockConfig, { ...defaults, environment: "production", port: 0, db: ":memory:" }))
    )
    const result = await Effect.runPromise(Effect.scoped(Effect.provide(program, layer)))
    expect(new Set(result.anonymous)).toStrictEqual(new Set([null]))
    expect(result.firstWithKeys).toBe("the signature was made with another key, or over other bytes than those sent")
    expect(result.overBudget).toBeNull()
    expect(result.secondsOverBudget).toBe("X-R-TS looks like seconds; send Unix epoch milliseconds")
  })
})
