import { describeCryptoProvider } from "@pc/crypto-conformance"
import { describe, expect, it } from "vitest"
import { WebCrypto } from "../src/index.js"
import { pkcs1PrivateToPkcs8, pkcs1PublicToSpki } from "../src/internal/der.js"
import { Pem } from "@pc/core"
import { keyOf } from "@pc/crypto-conformance"

// Name the runtime in every test title, so the output shows these ran inside the browser.
const where =
  typeof navigator !== "undefined" && /Chrome\//.test(navigator.userAgent)
    ? `chromium ${/Chrome\/([\d.]+)/.exec(navigator.userAgent)?.[1] ?? ""}`.trim()
    : `node ${globalThis.process?.versions?.node ?? ""}`.trim()

describeCryptoProvider(`web (crypto.subtle) in ${where}`, WebCrypto)

describe(`PKCS#1 wrapping in ${where}`, () => {
  it("wraps PKCS#1 private and public keys into exactly the PKCS#8 and SPKI that openssl makes", () => {
    for (const name of ["merchant-v1", "merchant-3072", "merchant-4096"]) {
      const key = keyOf(name)
      expect(pkcs1PrivateToPkcs8(Pem.decodePrivateKey(key.privatePkcs1Pem).der)).toEqual(
        Pem.decodePrivateKey(key.privatePkcs8Pem).der
      )
      expect(pkcs1PublicToSpki(Pem.decodePublicKey(key.publicPkcs1Pem).der)).toEqual(
        Pem.decodePublicKey(key.publicSpkiPem).der
      )
    }
  })
})
