// verifyNow: verify's answers at once, as a boolean, never a throw.
import { Canonical } from "@pc/core"
import { editedSignature, keyOf, vectors } from "@pc/crypto-conformance"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { NodeCrypto } from "../src/index.js"

describe("NodeVerifier.verifyNow", () => {
  it("accepts every openssl request vector, and refuses each with another body", async () => {
    for (const v of vectors.requests) {
      const verifier = await NodeCrypto.importPublicKey(keyOf(v.key).publicSpkiPem)
      expect(verifier.verifyNow(v.stringToSign, v.signature)).toBe(true)
      expect(verifier.verifyNow(`${v.stringToSign} `, v.signature)).toBe(false)
      expect(verifier.verifyNow(Canonical.requestStringToSign({ ...v, body: `${v.body}x` }), v.signature)).toBe(false)
    }
  })

  it("agrees with verify on any edit of a valid signature", async () => {
    const v = vectors.requests[0]!
    const verifier = await NodeCrypto.importPublicKey(keyOf(v.key).publicSpkiPem)
    await fc.assert(
      fc.asyncProperty(editedSignature(v.signature), async (text) => {
        const now = verifier.verifyNow(v.stringToSign, text)
        expect(now).toBe(await verifier.verify(v.stringToSign, text))
        expect(now).toBe(text === v.signature)
      }),
      { numRuns: 200 }
    )
  })

  it("answers false, without throwing, for what is no signature at all", async () => {
    const v = vectors.requests[0]!
    const verifier = await NodeCrypto.importPublicKey(keyOf(v.key).publicSpkiPem)
    expect(verifier.verifyNow(v.stringToSign, new Uint8Array(10))).toBe(false)
    expect(verifier.verifyNow(v.stringToSign, ["a", "b"] as unknown as string)).toBe(false)
    expect(verifier.verifyNow(v.stringToSign, undefined as unknown as string)).toBe(false)
    expect(verifier.verifyNow(v.stringToSign, "")).toBe(false)
  })
})
