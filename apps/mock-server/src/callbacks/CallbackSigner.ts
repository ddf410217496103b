/**
 * Signs callbacks with a platform private key (SHA256withRSA, spec 5.5) on node:crypto's thread
 * pool, not on the event loop: `@pc/crypto-node`'s `signOffThread`. A 2048-bit RSA signature costs
 * milliseconds of CPU: signed on the main thread the dispatcher could send no more callbacks per
 * second than one thread signs, and everything else the mock does would wait behind it.
 */
import type { Crypto } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"

/**
 * The signer of a platform private key (PEM, PKCS#8 as the mock generates it, or PKCS#1), parsed
 * once; each `sign` runs on libuv's thread pool and resolves the standard Base64 signature.
 *
 * Rejects with `Crypto.KeyImportError` when the PEM is not a private key (the store only holds
 * keys the mock made, so that is a broken database, not bad input).
 *
 * @example
 * ```ts
 * const signer = await platformSigner(key.privateKeyPem)
 * const signature = await signer.sign(Canonical.callbackStringToSign({ appKey, timestamp, body }))
 * ```
 */
export const platformSigner = async (privateKeyPem: string): Promise<Crypto.Signer> => {
  const key = await NodeCrypto.importPrivateKey(privateKeyPem)
  return { modulusLength: key.modulusLength, sign: (message) => key.signOffThread(message) }
}
