// verifyOnThreadPool and signOffThread: the same answers as verify and sign, with the RSA work on
// libuv's thread pool.
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

describe("NodeSigner.signOffThread", () => {
  it("gives each of many signatures in flight together the bytes sign gives, which verify", async () => {
    const key = keyOf("merchant-v1")
    const signer = await NodeCrypto.importPrivateKey(key.privatePkcs8Pem)
    const verifier = await NodeCrypto.importPublicKey(key.publicSpkiPem)
    const messages = Array.from({ length: 24 }, (_, i) => `POST /openapi/v2/order/create\n${i}`)
    const offThread = await Promise.all(messages.map((message) => signer.signOffThread(message)))
    for (const [i, message] of messages.entries()) {
      expect(offThread[i]).toBe(await signer.sign(message))
      expect(await verifier.verify(message, offThread[i]!)).toBe(true)
    }
  })

  it("leaves the event loop free while it signs", async () => {
    const signer = await NodeCrypto.importPrivateKey(keyOf("merchant-v1").privatePkcs8Pem)
    // 64 signatures on libuv's 4 threads take at least 16 signatures' time; a timer due now fires
    // in the meantime. Signed on the calling thread, none could fire before the last signature.
    let resolvedBeforeTimer = 0
    let timerFired = false
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        timerFired = true
        resolve()
      }, 0)
    )
    const signing = Array.from({ length: 64 }, (_, i) =>
      signer.signOffThread(`message ${i}`).then(() => {
        if (!timerFired) resolvedBeforeTimer++
      })
    )
    await timer
    await Promise.all(signing)
    expect(resolvedBeforeTimer).toBeLessThan(64)
  })

  it("signs with no pool on sign itself: the answer is there before the next turn of the loop", async () => {
    const signer = await NodeCrypto.importPrivateKey(keyOf("merchant-v1").privatePkcs8Pem)
    let timerFired = false
    setTimeout(() => {
      timerFired = true
    }, 0)
    await signer.sign("one request")
    expect(timerFired).toBe(false)
  })
})
