/**
 * Generates merchant RSA key pairs as PEM, ready to upload (public) and to keep secret (private).
 *
 * @since 0.1.0
 */
import { generateKeyPair } from "node:crypto"

/**
 * The modulus lengths offered: 2048 (the spec's recommendation), 3072 and 4096.
 *
 * @example
 * ```ts
 * import { KeyPair } from "@pc/crypto-node"
 *
 * const modulusLength: KeyPair.ModulusLength = 3072
 * const pair = await KeyPair.generate(modulusLength)
 * ```
 */
export type ModulusLength = 2048 | 3072 | 4096

/**
 * A generated pair: the private key as PKCS#8 PEM, the public key as SPKI PEM.
 *
 * @example
 * ```ts
 * import { writeFile } from "node:fs/promises"
 * import { KeyPair } from "@pc/crypto-node"
 *
 * const pair: KeyPair.PemKeyPair = await KeyPair.generate()
 * await writeFile("merchant-private.pem", pair.privateKeyPem, { mode: 0o600 }) // keep secret
 * await writeFile("merchant-public.pem", pair.publicKeyPem) // upload to the merchant portal
 * ```
 */
export interface PemKeyPair {
  readonly privateKeyPem: string
  readonly publicKeyPem: string
  readonly modulusLength: ModulusLength
}

/**
 * Generates an RSA key pair (public exponent 65537) in PEM, off the main thread.
 *
 * Rejects with a `RangeError` for a modulus length other than 2048, 3072 or 4096.
 *
 * @example
 * ```ts
 * import { KeyPair } from "@pc/crypto-node"
 *
 * const { privateKeyPem, publicKeyPem } = await KeyPair.generate() // 2048 bits
 * ```
 */
export const generate = (modulusLength: ModulusLength = 2048): Promise<PemKeyPair> => {
  if (modulusLength !== 2048 && modulusLength !== 3072 && modulusLength !== 4096) {
    return Promise.reject(new RangeError(`modulus length must be 2048, 3072 or 4096, not ${String(modulusLength)}`))
  }
  return new Promise((resolve, reject) =>
    generateKeyPair(
      "rsa",
      {
        modulusLength,
        publicExponent: 0x10001,
        publicKeyEncoding: { type: "spki", format: "pem" },
        privateKeyEncoding: { type: "pkcs8", format: "pem" }
      },
      (error, publicKeyPem, privateKeyPem) =>
        error ? reject(error) : resolve({ privateKeyPem, publicKeyPem, modulusLength })
    )
  )
}
