import { Canonical, type Crypto } from "@pc/core"
import { NodeCrypto } from "../src/index.js"
import { WebCrypto } from "@pc/crypto-web"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { editedSignature, keyOf, vectors } from "@pc/crypto-conformance"

const providers: ReadonlyArray<readonly [string, Crypto.CryptoProvider]> = [
  ["node", NodeCrypto],
  ["web", WebCrypto]
]

describe("cross-adapter: what one signs, the other verifies", () => {
  for (const [signerName, signing] of providers) {
    for (const [verifierName, verifying] of providers) {
      if (signerName === verifierName) continue
      it(`${signerName} signs, ${verifierName} verifies (every key size, PKCS#1 and PKCS#8)`, async () => {
        for (const name of ["merchant-v1", "merchant-3072", "merchant-4096"]) {
          const key = keyOf(name)
          const verifier = await verifying.importPublicKey(key.publicPkcs1Pem)
          for (const pem of [key.privatePkcs8Pem, key.privatePkcs1Pem]) {
            const signer = await signing.importPrivateKey(pem)
            for (const v of vectors.requests) {
              const text = Canonical.requestStringToSign(v)
              expect(await verifier.verify(text, await signer.sign(text))).toBe(true)
            }
          }
        }
      })

      it(`${signerName} and ${verifierName} agree on random Unicode bodies, byte for byte`, async () => {
        const key = keyOf("merchant-v2")
        const signer = await signing.importPrivateKey(key.privatePkcs8Pem)
        const other = await verifying.importPrivateKey(key.privatePkcs1Pem)
        const verifier = await verifying.importPublicKey(key.publicSpkiPem)
        await fc.assert(
          fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 300 }), async (body) => {
            const text = Canonical.callbackStringToSign({
              appKey: "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4",
              timestamp: 1763712005000,
              body
            })
            const signature = await signer.sign(text)
            // PKCS#1 v1.5 is deterministic: both runtimes must produce the same bytes.
            expect(await other.sign(text)).toBe(signature)
            expect(await verifier.verify(text, signature)).toBe(true)
          }),
          { numRuns: 30 }
        )
      })
    }
  }
})

describe("cross-adapter: the same signature texts are accepted", () => {
  it("node's native Base64 path and web's core decoder agree on any edit of a valid signature", async () => {
    const v = vectors.requests[0]!
    const key = keyOf(v.key)
    const node = await NodeCrypto.importPublicKey(key.publicSpkiPem)
    const web = await WebCrypto.importPublicKey(key.publicSpkiPem)
    await fc.assert(
      fc.asyncProperty(editedSignature(v.signature, 1), async (text) => {
        const [a, b] = await Promise.all([node.verify(v.stringToSign, text), web.verify(v.stringToSign, text)])
        expect(a).toBe(b)
        expect(a).toBe(text === v.signature)
      }),
      { numRuns: 500 }
    )
  })

  it("a second spelling of the same bytes (non-zero bits before the padding) is refused by both", async () => {
    // A 2048-bit signature is 256 bytes: Base64 ends in one data character plus "==".
    const v = vectors.requests[0]!
    const node = await NodeCrypto.importPublicKey(keyOf(v.key).publicSpkiPem)
    const web = await WebCrypto.importPublicKey(keyOf(v.key).publicSpkiPem)
    expect(v.signature.endsWith("==")).toBe(true)
    const last = v.signature.at(-3)!
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    const sibling = alphabet[alphabet.indexOf(last) + 1]!
    const respelled = v.signature.slice(0, -3) + sibling + "=="
    expect(await node.verify(v.stringToSign, respelled)).toBe(false)
    expect(await web.verify(v.stringToSign, respelled)).toBe(false)
    expect(await node.verify(v.stringToSign, v.signature)).toBe(true)
  })
})
