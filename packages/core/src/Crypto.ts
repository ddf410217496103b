/**
 * The one signer/verifier contract that every crypto adapter implements (`@pc/crypto-node` on
 * node:crypto, `@pc/crypto-web` on WebCrypto). Async so WebCrypto fits; free of `effect`.
 *
 * @since 0.1.0
 */

/**
 * What is signed or verified: a string (signed as its UTF-8 bytes) or the bytes themselves.
 *
 * @example
 * ```ts
 * import { Canonical, type Crypto } from "@pc/core"
 *
 * const message: Crypto.Message = Canonical.callbackBytesToSign(appKey, timestampHeader, rawBodyBytes)
 * const valid = await verifier.verify(message, signatureHeader)
 * ```
 */
export type Message = string | Uint8Array

/**
 * Keys below this modulus length are refused by every adapter (spec 8: 2048 bits or more).
 *
 * @example
 * ```ts
 * import { Crypto } from "@pc/core"
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const signer = await NodeCrypto.importPrivateKey(pem)
 * signer.modulusLength >= Crypto.MIN_MODULUS_LENGTH // always true: weaker keys are refused on import
 * ```
 */
export const MIN_MODULUS_LENGTH = 2048

/**
 * A private key, parsed once, that signs with SHA256withRSA (RSASSA-PKCS1-v1_5 over SHA-256).
 *
 * @example
 * ```ts
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const signer = await NodeCrypto.importPrivateKey(pem)
 * const signature = await signer.sign("POST /openapi/v2/order/create\n…") // standard Base64
 * ```
 */
export interface Signer {
  /** The RSA modulus length in bits (2048 or more). */
  readonly modulusLength: number
  /** Signs the message (a string as its UTF-8 bytes) and resolves the signature as standard Base64. */
  sign(message: Message): Promise<string>
  /**
   * Optional: the same signature as {@link Signer.sign}, with the RSA work on another thread
   * (`@pc/crypto-node`: libuv's thread pool) instead of the calling one. For callers with other
   * work waiting on the thread, such as a client with several calls in flight: a 2048-bit
   * signature is about a millisecond of CPU that would otherwise hold up everything else. One
   * signature alone is a little slower this way (the hand-over and back). WebCrypto's signer has
   * none: on Node its `subtle.sign` already runs on the thread pool, but Chromium (156, measured)
   * computes the signature on the calling thread before `subtle.sign` returns its Promise.
   *
   * @example
   * ```ts
   * import { NodeCrypto } from "@pc/crypto-node"
   *
   * const signer = await NodeCrypto.importPrivateKey(pem)
   * const signature = await (signer.signOffThread ?? signer.sign).call(signer, stringToSign)
   * ```
   */
  signOffThread?(message: Message): Promise<string>
}

/**
 * A public key, parsed once, that verifies SHA256withRSA signatures.
 *
 * @example
 * ```ts
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const verifier = await NodeCrypto.importPublicKey(platformPublicKeyPem)
 * await verifier.verify(stringToSign, headers["x-r-signature"]) // true or false
 * ```
 */
export interface Verifier {
  /** The RSA modulus length in bits (2048 or more). */
  readonly modulusLength: number
  /**
   * Resolves `true` only for a valid signature of exactly this message. The signature is standard
   * Base64 text or the raw bytes. Anything else (malformed Base64, wrong length, wrong key) resolves
   * `false`: it never rejects.
   */
  verify(message: Message, signature: string | Uint8Array): Promise<boolean>
}

/**
 * A runtime's way to import keys. Each import parses the key once; keep the returned
 * {@link Signer} or {@link Verifier} and reuse it.
 *
 * @example
 * ```ts
 * import type { Crypto } from "@pc/core"
 *
 * const signWith = async (provider: Crypto.CryptoProvider, pem: string, text: string) =>
 *   (await provider.importPrivateKey(pem)).sign(text)
 * ```
 */
export interface CryptoProvider {
  /** Which runtime's crypto this is, for logs and test names: `"node"` or `"web"`. */
  readonly runtime: string
  /**
   * Imports an RSA private key from PEM: PKCS#8 (`PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE KEY`).
   * Rejects with {@link KeyImportError}.
   */
  importPrivateKey(pem: string): Promise<Signer>
  /**
   * Imports an RSA public key from PEM, SPKI (`PUBLIC KEY`) or PKCS#1 (`RSA PUBLIC KEY`), or from
   * the bare Base64 body of either. Rejects with {@link KeyImportError}.
   */
  importPublicKey(pemOrBase64: string): Promise<Verifier>
}

/**
 * Why a key could not be imported: the `reason` of a {@link KeyImportError}.
 *
 * @example
 * ```ts
 * import type { Crypto } from "@pc/core"
 *
 * const advice: Record<Crypto.KeyImportErrorReason, string> = {
 *   MalformedKey: "paste the whole PEM, BEGIN and END lines included",
 *   UnsupportedKey: "use an unencrypted RSA key of the right kind (private to sign, public to verify)",
 *   WeakKey: "generate a new RSA key of 2048 bits or more",
 *   UnsupportedRuntime: "run where crypto.subtle is available (a secure context, Node 20+, a worker)"
 * }
 * ```
 */
export type KeyImportErrorReason =
  /** Not PEM, or PEM whose body is not valid Base64/DER. */
  | "MalformedKey"
  /** A valid key of a kind this scheme does not use: encrypted, a certificate, EC, or private where public is expected. */
  | "UnsupportedKey"
  /** An RSA key under {@link MIN_MODULUS_LENGTH} bits, or with an unsafe public exponent. */
  | "WeakKey"
  /** The runtime has no usable crypto (for example no `crypto.subtle` outside a secure context). */
  | "UnsupportedRuntime"

const CODES = {
  MalformedKey: "ERR_PC_KEY_MALFORMED",
  UnsupportedKey: "ERR_PC_KEY_UNSUPPORTED",
  WeakKey: "ERR_PC_KEY_WEAK",
  UnsupportedRuntime: "ERR_PC_CRYPTO_UNAVAILABLE"
} as const

/**
 * A key that cannot be used. `code` is stable for callers to switch on; the message names the
 * problem and never contains key material.
 *
 * @example
 * ```ts
 * import { Crypto } from "@pc/core"
 *
 * try {
 *   await provider.importPrivateKey(pem)
 * } catch (error) {
 *   if (error instanceof Crypto.KeyImportError && error.reason === "WeakKey") console.error(error.message)
 * }
 * ```
 */
export class KeyImportError extends Error {
  /** Lets Effect code match it with `catchTag`. */
  readonly _tag = "KeyImportError"
  /** `ERR_PC_KEY_MALFORMED`, `ERR_PC_KEY_UNSUPPORTED`, `ERR_PC_KEY_WEAK` or `ERR_PC_CRYPTO_UNAVAILABLE`. */
  readonly code: "ERR_PC_KEY_MALFORMED" | "ERR_PC_KEY_UNSUPPORTED" | "ERR_PC_KEY_WEAK" | "ERR_PC_CRYPTO_UNAVAILABLE"
  constructor(
    readonly reason: KeyImportErrorReason,
    message: string
  ) {
    super(message)
    this.name = "KeyImportError"
    this.code = CODES[reason]
  }
}
