// One conformance suite for every crypto adapter (the stripe-node / jose habit): each adapter's
// tests call `describeCryptoProvider` with its provider, in every runtime it supports. It imports
// core's subpaths only, so that bundled for Bun, Deno or workerd it carries no `effect`.
import * as Base64 from "@pc/core/Base64"
import * as Canonical from "@pc/core/Canonical"
import * as Crypto from "@pc/core/Crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { keyOf, pemBody, vectors } from "./vectors.js"

export { editedSignature } from "./SignatureEdits.js"
export {
  type CallbackVector,
  keyOf,
  type NegativeVector,
  pemBody,
  type RequestVector,
  type VectorKey,
  vectors
} from "./vectors.js"

const expectKeyImportError = async (promise: Promise<unknown>, reason: Crypto.KeyImportErrorReason) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(Crypto.KeyImportError)
  expect((error as Crypto.KeyImportError).reason).toBe(reason)
  return error as Crypto.KeyImportError
}

/** Mutates one UTF-16 unit of a string at `index` into a different character. */
const mutateAt = (text: string, index: number, replacement: string): string => {
  const i = index % text.length
  const current = text[i]
  const next = replacement === current ? (current === "a" ? "b" : "a") : replacement
  return text.slice(0, i) + next + text.slice(i + 1)
}

/**
 * Defines the conformance tests of one provider. `label` names the runtime in the test output
 * (for example `"web in chromium"`), so a reader sees where each case ran.
 */
export const describeCryptoProvider = (label: string, provider: Crypto.CryptoProvider): void => {
  describe(`crypto conformance: ${label}`, () => {
    describe("request vectors (openssl)", () => {
      for (const v of vectors.requests) {
        it(`${v.name}: exact string to sign and signature from PKCS#8 and PKCS#1, verified by SPKI, PKCS#1 and bare Base64`, async () => {
          const stringToSign = Canonical.requestStringToSign(v)
          expect(stringToSign).toBe(v.stringToSign)
          const key = keyOf(v.key)
          const pkcs8Signer = await provider.importPrivateKey(key.privatePkcs8Pem)
          const pkcs1Signer = await provider.importPrivateKey(key.privatePkcs1Pem)
          expect(await pkcs8Signer.sign(stringToSign)).toBe(v.signature)
          expect(await pkcs1Signer.sign(stringToSign)).toBe(v.signature)
          // Off the calling thread, where the provider offers it: the same bytes.
          for (const signer of [pkcs8Signer, pkcs1Signer]) {
            if (signer.signOffThread !== undefined) expect(await signer.signOffThread(stringToSign)).toBe(v.signature)
          }
          for (const publicKey of [
            key.publicSpkiPem,
            key.publicPkcs1Pem,
            pemBody(key.publicSpkiPem),
            pemBody(key.publicPkcs1Pem)
          ]) {
            const verifier = await provider.importPublicKey(publicKey)
            expect(verifier.modulusLength).toBe(key.bits)
            expect(await verifier.verify(stringToSign, v.signature)).toBe(true)
          }
        })
      }
    })

    describe("callback vectors (openssl)", () => {
      for (const v of vectors.callbacks) {
        it(`${v.name}: exact string to sign and signature, verified from text and from raw body bytes`, async () => {
          const stringToSign = Canonical.callbackStringToSign(v)
          expect(stringToSign).toBe(v.stringToSign)
          const key = keyOf(v.key)
          expect(await (await provider.importPrivateKey(key.privatePkcs8Pem)).sign(stringToSign)).toBe(v.signature)
          expect(await (await provider.importPrivateKey(key.privatePkcs1Pem)).sign(stringToSign)).toBe(v.signature)
          const verifier = await provider.importPublicKey(key.publicSpkiPem)
          expect(await verifier.verify(stringToSign, v.signature)).toBe(true)
          const bodyBytes = new TextEncoder().encode(v.body)
          const bytes = Canonical.callbackBytesToSign(v.appKey, v.timestamp, bodyBytes)
          expect(await verifier.verify(bytes, v.signature)).toBe(true)
          // The other environment's platform key must not verify it (spec 5.5).
          const other = v.environment === "sandbox" ? "platform-production-v1" : "platform-sandbox-v1"
          expect(
            await (await provider.importPublicKey(keyOf(other).publicSpkiPem)).verify(stringToSign, v.signature)
          ).toBe(false)
        })
      }
    })

    describe("negative vectors", () => {
      for (const v of vectors.negative) {
        it(`${v.name} (${v.why}) fails verification`, async () => {
          const verifier = await provider.importPublicKey(keyOf(v.key).publicSpkiPem)
          expect(await verifier.verify(Canonical.requestStringToSign(v), v.signature)).toBe(false)
        })
      }
    })

    describe("key import", () => {
      const weak = keyOf("weak-1024")
      it("refuses the 1024-bit key in every form, for signing and for verifying", async () => {
        for (const pem of [weak.privatePkcs8Pem, weak.privatePkcs1Pem]) {
          const error = await expectKeyImportError(provider.importPrivateKey(pem), "WeakKey")
          expect(error.code).toBe("ERR_PC_KEY_WEAK")
          expect(error.message).toContain("1024 bits")
        }
        for (const pem of [weak.publicSpkiPem, weak.publicPkcs1Pem, pemBody(weak.publicSpkiPem)]) {
          await expectKeyImportError(provider.importPublicKey(pem), "WeakKey")
        }
      })

      it("refuses malformed PEM with a typed error that does not echo the key", async () => {
        const pem = keyOf("merchant-v1").privatePkcs8Pem
        const broken = pem.replace(/[A-Za-z0-9+/]{10}\n/, "!!!!!!!!!!\n")
        const error = await expectKeyImportError(provider.importPrivateKey(broken), "MalformedKey")
        expect(error.message).not.toContain(pemBody(pem).slice(20, 60))
        await expectKeyImportError(provider.importPrivateKey("not a key"), "MalformedKey")
        await expectKeyImportError(
          provider.importPrivateKey(pem.replace("END PRIVATE KEY", "END PUBLIC KEY")),
          "MalformedKey"
        )
        await expectKeyImportError(
          provider.importPublicKey("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"),
          "MalformedKey"
        )
        // Valid Base64 and DER shape, but a modulus that is no RSA key at all.
        const truncated = pemBody(keyOf("merchant-v1").publicSpkiPem).slice(0, 40)
        await expectKeyImportError(provider.importPublicKey(truncated), "MalformedKey")
      })

      it("refuses a public key where a private key belongs and the reverse", async () => {
        const key = keyOf("merchant-v1")
        await expectKeyImportError(provider.importPrivateKey(key.publicSpkiPem), "UnsupportedKey")
        await expectKeyImportError(provider.importPublicKey(key.privatePkcs8Pem), "UnsupportedKey")
        await expectKeyImportError(provider.importPublicKey(key.privatePkcs1Pem), "UnsupportedKey")
      })

      it("keeps the imported key unreachable: nothing on a signer or verifier can export it", async () => {
        const key = keyOf("merchant-v1")
        for (const imported of [
          await provider.importPrivateKey(key.privatePkcs8Pem),
          await provider.importPublicKey(key.publicSpkiPem)
        ]) {
          expect(Object.keys(imported)).toEqual(["modulusLength"])
          expect(JSON.stringify(imported)).toBe(`{"modulusLength":${key.bits}}`)
          expect("key" in imported).toBe(false)
        }
      })

      it("accepts CRLF line endings and surrounding whitespace", async () => {
        const key = keyOf("merchant-v1")
        const crlf = `\n  ${key.privatePkcs8Pem.replace(/\n/g, "\r\n")}  \n`
        const v = vectors.requests[0]!
        expect(await (await provider.importPrivateKey(crlf)).sign(v.stringToSign)).toBe(v.signature)
      })
    })

    describe("verification never throws", () => {
      it("anything that is not a string or bytes resolves false (an absent header, an array of headers)", async () => {
        const v = vectors.requests[0]!
        const verifier = await provider.importPublicKey(keyOf(v.key).publicSpkiPem)
        for (const signature of [undefined, null, 42, [v.signature], { signature: v.signature }]) {
          // Called the way untyped code calls it: must resolve false, neither throw nor reject.
          const result = await Promise.resolve().then(() =>
            verifier.verify(v.stringToSign, signature as unknown as string)
          )
          expect(result).toBe(false)
        }
      })

      it("malformed signatures resolve false", async () => {
        const v = vectors.requests[0]!
        const verifier = await provider.importPublicKey(keyOf(v.key).publicSpkiPem)
        const urlSafe = v.signature.replace(/\+/g, "-").replace(/\//g, "_")
        // A second spelling of the same bytes: non-zero bits before the padding. A lenient decoder
        // (Buffer's, atob) reads it as the very signature; strict Base64 has one spelling of each.
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        const beforePadding = v.signature.indexOf("=") - 1
        expect(beforePadding > 0).toBe(true) // a 2048-bit signature (256 bytes) ends in "=="
        const strayBits =
          v.signature.slice(0, beforePadding) +
          alphabet[alphabet.indexOf(v.signature[beforePadding]!) ^ 1] +
          v.signature.slice(beforePadding + 1)
        expect(await verifier.verify(v.stringToSign, v.signature)).toBe(true)
        for (const signature of [
          strayBits,
          "",
          "====",
          "not base64!",
          urlSafe,
          v.signature + "AAAA",
          v.signature.slice(4),
          " " + v.signature,
          new Uint8Array(0),
          new Uint8Array(256)
        ]) {
          expect(await verifier.verify(v.stringToSign, signature)).toBe(false)
        }
      })
    })

    describe("properties", () => {
      const appKey = "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4"
      const path = "/openapi/v2/order/create"
      const signerP = provider.importPrivateKey(keyOf("merchant-v1").privatePkcs8Pem)
      const verifierP = provider.importPublicKey(keyOf("merchant-v1").publicSpkiPem)
      const body = fc.string({ unit: "grapheme", maxLength: 200 })
      const timestamp = fc.integer({ min: 0, max: 4_102_444_800_000 })

      it("sign then verify holds for random Unicode bodies and timestamps", async () => {
        const signer = await signerP
        const verifier = await verifierP
        await fc.assert(
          fc.asyncProperty(body, timestamp, async (b, ts) => {
            const text = Canonical.requestStringToSign({ method: "POST", path, appKey, timestamp: ts, body: b })
            expect(await verifier.verify(text, await signer.sign(text))).toBe(true)
          }),
          { numRuns: 40 }
        )
      })

      it("changing one character of body, timestamp, appKey or path, or one byte of the signature, fails", async () => {
        const signer = await signerP
        const verifier = await verifierP
        const field = fc.constantFrom("body", "timestamp", "appKey", "path", "signature")
        await fc.assert(
          fc.asyncProperty(
            body.filter((s) => s.length > 0),
            timestamp,
            field,
            fc.nat(),
            fc.constantFrom("x", "0", "é", " "),
            async (b, ts, which, index, replacement) => {
              const input = { method: "POST", path, appKey, timestamp: String(ts), body: b }
              const signature = await signer.sign(Canonical.requestStringToSign(input))
              if (which === "signature") {
                const bytes = (Base64.decode(signature) as { readonly bytes: Uint8Array }).bytes.slice()
                bytes[index % bytes.length]! ^= 1 << (index % 8)
                expect(await verifier.verify(Canonical.requestStringToSign(input), bytes)).toBe(false)
                return
              }
              const changed = { ...input, [which]: mutateAt(input[which], index, replacement) }
              expect(await verifier.verify(Canonical.requestStringToSign(changed), signature)).toBe(false)
            }
          ),
          { numRuns: 40 }
        )
      })
    })
  })
}
