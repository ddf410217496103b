// verifyOnThreadPool: the same answers as verify, with the RSA work on libuv's thread pool.
import { Canonical } from "@pc/core"
import { editedSignature, keyOf, vectors } from "@pc/crypto-conformance"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { NodeCrypto } from "../src/index.js"

describe("NodeVerifier.verifyOnThreadPool", () => {
  it("accepts every openssl request vector, and refuses each with another body", async () => {
    for (const v of vectors.requests) {
      const verifier = await NodeCrypto.importPublicKey(keyOf(v.key).publicSpkiPem)
      expect(await verifier.verifyOnThreadPool(v.stringToSign, v.signature)).toBe(true)
      expect(await verifier.verifyOnThreadPool(`${v.stringToSign} `, v.signature)).toBe(false)
      expect(
        await verifier.verifyOnThreadPool(Canonical.requestStringToSign({ ...v, body: `${v.body}x` }), v.signature)
      ).toBe(false)
    }
  })

  it("agrees with verify on any edit of a valid signature, many at once", async () => {
    const v = vectors.requests[0]!
    const verifier = await NodeCrypto.importPublicKey(keyOf(v.key).publicSpkiPem)
    await fc.assert(
      fc.asyncProperty(fc.array(editedSignature(v.signature), { minLength: 1, maxLength: 16 }), async (texts) => {
        // All in flight together: each answer must be its own signature's.
        const pooled = await Promise.all(texts.map((text) => verifier.verifyOnThreadPool(v.stringToSign, text)))
        for (const [i, text] of texts.entries()) {
          expect(pooled[i]).toBe(await verifier.verify(v.stringToSign, text))
          expect(pooled[i]).toBe(text === v.signature)
        }
      }),
      { numRuns: 100 }
    )
  })

  it("resolves false for what is no signature at all (bytes of the wrong length, a header array)", async () => {
    const v = vectors.requests[0]!
    const verifier = await NodeCrypto.importPublicKey(keyOf(v.key).publicSpkiPem)
    expect(await verifier.verifyOnThreadPool(v.stringToSign, new Uint8Array(10))).toBe(false)
    expect(await verifier.verifyOnThreadPool(v.stringToSign, ["a", "b"] as unknown as string)).toBe(false)
    expect(await verifier.verifyOnThreadPool(v.stringToSign, "")).toBe(false)
  })
})
