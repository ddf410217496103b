// The likely-cause diagnosis of a bad signature (src/domain/auth/Diagnose.ts): it still names the usual
// mistakes, and its work is bounded whatever the body: a deep or large body is never re-serialised.
import { Canonical, type Crypto } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { NodeCrypto } from "@pc/crypto-node"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { diagnose } from "../src/domain/auth/Diagnose.js"
import * as Step from "../src/domain/Step.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem, testMerchantPublicKeyPem } from "../src/main/TestMerchant.js"

/** The test merchant's real verifier, counting the messages it is asked about and their total size. */
const countingVerifier = async () => {
  const real = await NodeCrypto.importPublicKey(testMerchantPublicKeyPem())
  const seen = { calls: 0, bytes: 0 }
  const verifier: Crypto.Verifier = {
    modulusLength: real.modulusLength,
    verify: (message, signature) => {
      seen.calls++
      seen.bytes += typeof message === "string" ? message.length : message.length
      return real.verify(message, signature)
    }
  }
  return { verifier, seen }
}

const run = async (body: string, signedBody: string) => {
  const { verifier, seen } = await countingVerifier()
  const signer = await NodeCrypto.importPrivateKey(testMerchantPrivateKeyPem())
  const timestamp = String(Date.now())
  const base = { method: "POST", path: Wire.CREATE_ORDER_PATH, appKey: TEST_MERCHANT_APP_KEY, timestamp }
  const signature = await signer.sign(Canonical.requestStringToSign({ ...base, body: signedBody }))
  const headers = {
    "x-r-ak": TEST_MERCHANT_APP_KEY,
    "x-r-ts": timestamp,
    "x-r-key-version": "1",
    "x-r-signature": signature
  }
  const cause = await Effect.runPromise(
    Step.toEffect(
      diagnose({ method: "POST", path: Wire.CREATE_ORDER_PATH, headers, body }, Date.now(), () => [
        { version: 1, verifier }
      ])
    )
  )
  return { cause, seen }
}

describe("diagnose", () => {
  it("still finds a body pretty-printed after signing", async () => {
    const fields = { orderId: "d-1", amount: "1.00", currency: "USD" }
    const { cause } = await run(JSON.stringify(fields), JSON.stringify(fields, null, 2))
    expect(cause).toMatch(/pretty-printed/)
  })

  it("does no re-serialisation of a deeply nested body: a handful of verifications over the body as sent", async () => {
    // The shape that stalled the server: nine arrays nested 3,000 deep, sent with a space so that
    // its compact and pretty-printed forms all differ from it.
    const deep = Array.from({ length: 9 }, () => "[".repeat(3_000) + "]".repeat(3_000)).join(", ")
    const body = `{"orderId": "d-2", "x": [${deep}]}`
    const { cause, seen } = await run(body, "something else")
    expect(cause).toMatch(/another key, or over other bytes/)
    // The exact text is checked by the caller; here only the lower-case method and the callback
    // form are tried: two messages, each about the size of the body.
    expect(seen.calls).toBeLessThanOrEqual(2)
    expect(seen.bytes).toBeLessThanOrEqual(2 * (body.length + 200))
  })

  it("does no re-serialisation of a large body either", async () => {
    const body = `{"orderId": "d-3", "x": [${Array.from({ length: 8_000 }, (_, i) => i).join(", ")}]}`
    const { seen } = await run(body, "something else")
    expect(seen.calls).toBeLessThanOrEqual(2)
  })
})
