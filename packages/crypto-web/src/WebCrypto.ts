/**
 * SHA256withRSA on WebCrypto (`crypto.subtle`): the {@link Crypto.CryptoProvider} of `@pc/core`
 * for browsers, Deno, Bun and edge workers. Keys are imported once as non-extractable `CryptoKey`s.
 *
 * @since 0.1.0
 */
// Subpath imports: the package index also carries the Schemas, which would load `effect` at run time.
import * as Base64 from "@pc/core/Base64"
import * as Crypto from "@pc/core/Crypto"
import * as Pem from "@pc/core/Pem"
import { pkcs1PrivateToPkcs8, pkcs1PublicToSpki } from "./internal/der.js"

/**
 * This provider's runtime name, `"web"`, as {@link Crypto.CryptoProvider} `runtime` asks.
 *
 * @example
 * ```ts
 * import { WebCrypto } from "@pc/crypto-web"
 *
 * console.log(`signing with ${WebCrypto.runtime} crypto`) // "signing with web crypto"
 * ```
 */
export const runtime = "web"

const ALGORITHM = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const

const encoder = /* @__PURE__ */ new TextEncoder()

// WebCrypto's typings want ArrayBuffer-backed views; every view here is one.
type Bytes = Uint8Array<ArrayBuffer>

const toBytes = (message: Crypto.Message): Bytes =>
  (typeof message === "string" ? encoder.encode(message) : message) as Bytes

const subtle = (): SubtleCrypto => {
  const value = globalThis.crypto?.subtle
  if (value === undefined) {
    throw new Crypto.KeyImportError(
      "UnsupportedRuntime",
      "WebCrypto (crypto.subtle) is not available here: it needs a secure context in browsers, Node 20+, Deno, Bun or a worker runtime"
    )
  }
  return value
}

class WebSigner implements Crypto.Signer {
  // A true private field: the key object is not reachable from outside (no `.export()` of a private key).
  readonly #key: CryptoKey
  constructor(
    key: CryptoKey,
    readonly modulusLength: number
  ) {
    this.#key = key
  }
  async sign(message: Crypto.Message): Promise<string> {
    return Base64.encode(new Uint8Array(await subtle().sign(ALGORITHM, this.#key, toBytes(message))))
  }
}

class WebVerifier implements Crypto.Verifier {
  readonly #signatureLength: number
  readonly #key: CryptoKey
  constructor(
    key: CryptoKey,
    readonly modulusLength: number
  ) {
    this.#key = key
    this.#signatureLength = Math.ceil(modulusLength / 8)
  }
  verify(message: Crypto.Message, signature: string | Uint8Array): Promise<boolean> {
    let bytes: Uint8Array
    if (typeof signature === "string") {
      const decoded = Base64.decode(signature)
      if (!decoded.ok) return Promise.resolve(false)
      bytes = decoded.bytes
    } else if (signature instanceof Uint8Array) bytes = signature
    else return Promise.resolve(false) // an absent header (undefined), an array of headers: not a signature
    if (bytes.length !== this.#signatureLength) return Promise.resolve(false)
    // Not an async function: the promise crypto.subtle gives is passed on with one handler, not
    // wrapped in a second promise (one verify per callback or request is the hot path).
    try {
      return subtle()
        .verify(ALGORITHM, this.#key, bytes as Bytes, toBytes(message))
        .then(undefined, never)
    } catch {
      return Promise.resolve(false)
    }
  }
}

// A verification that cannot run (a key of the wrong kind, a runtime refusal) is a failed one.
const never = (): boolean => false

const importKey = async (format: "pkcs8" | "spki", der: Uint8Array, usage: "sign" | "verify"): Promise<CryptoKey> => {
  try {
    return await subtle().importKey(format, der as Bytes, ALGORITHM, false, [usage])
  } catch {
    throw new Crypto.KeyImportError(
      "MalformedKey",
      `the ${usage === "sign" ? "private" : "public"} key is not a valid RSA key (WebCrypto could not import it)`
    )
  }
}

/**
 * Imports an RSA private key from PEM (PKCS#8, or PKCS#1 which is wrapped into PKCS#8 first), once,
 * as a non-extractable key for signing.
 *
 * Rejects with `Crypto.KeyImportError` from `@pc/core`: `MalformedKey`, `UnsupportedKey`, or `WeakKey`
 * for keys under 2048 bits. The error never contains the key.
 *
 * @example
 * ```ts
 * import { WebCrypto } from "@pc/crypto-web"
 *
 * const signer = await WebCrypto.importPrivateKey(env.MERCHANT_PRIVATE_KEY_PEM)
 * const signature = await signer.sign(stringToSign)
 * ```
 */
export const importPrivateKey = async (pem: string): Promise<Crypto.Signer> => {
  const decoded = Pem.decodePrivateKey(pem)
  const pkcs8 = decoded.format === "pkcs8" ? decoded.der : pkcs1PrivateToPkcs8(decoded.der)
  return new WebSigner(await importKey("pkcs8", pkcs8, "sign"), decoded.modulusLength)
}

/**
 * Imports an RSA public key from PEM (SPKI, or PKCS#1 which is wrapped into SPKI first) or a bare
 * Base64 body, once, for verifying.
 *
 * Rejects with `Crypto.KeyImportError` from `@pc/core`, like {@link importPrivateKey}.
 *
 * @example
 * ```ts
 * import { WebCrypto } from "@pc/crypto-web"
 *
 * const verifier = await WebCrypto.importPublicKey(platformPublicKeyPem)
 * const ok = await verifier.verify(stringToSign, signatureBase64)
 * ```
 */
export const importPublicKey = async (pemOrBase64: string): Promise<Crypto.Verifier> => {
  const decoded = Pem.decodePublicKey(pemOrBase64)
  const spki = decoded.format === "spki" ? decoded.der : pkcs1PublicToSpki(decoded.der)
  return new WebVerifier(await importKey("spki", spki, "verify"), decoded.modulusLength)
}
