/**
 * Signs callbacks with a platform private key (SHA256withRSA, spec 5.5) on node:crypto's thread
 * pool, not on the event loop. An RSA signature costs far more CPU than the rest of a callback
 * (bench/RESULTS.md, "The callback dispatcher"): signed on the main thread (as `@pc/crypto-node`'s signer does, right for a client signing one request at a time)
 * the dispatcher could send no more callbacks per second than one thread signs, and everything
 * else the mock does would wait behind it.
 */
import type { Crypto } from "@pc/core"
import { createPrivateKey, sign } from "node:crypto"

/**
 * The signer of a platform private key (PEM, PKCS#8 as the mock generates it, or PKCS#1), parsed
 * once; each `sign` runs on libuv's thread pool and resolves the standard Base64 signature, the
 * same bytes `@pc/crypto-node` gives (PKCS#1 v1.5 signatures are deterministic).
 *
 * Throws node:crypto's error when the PEM is not a private key (the store only holds keys the
 * mock made, so that is a broken database, not bad input).
 *
 * @example
 * ```ts
 * const signer = platformSigner(key.privateKeyPem)
 * const signature = await signer.sign(Canonical.callbackStringToSign({ appKey, timestamp, body }))
 * ```
 */
export const platformSigner = (privateKeyPem: string): Crypto.Signer => {
  const key = createPrivateKey(privateKeyPem)
  return {
    modulusLength: key.asymmetricKeyDetails?.modulusLength ?? 0,
    sign: (message) =>
      new Promise((resolve, reject) =>
        // With a callback, node:crypto signs on the thread pool (Node >= 15.12).
        sign("sha256", typeof message === "string" ? Buffer.from(message, "utf8") : message, key, (error, signature) =>
          error === null ? resolve(signature.toString("base64")) : reject(error)
        )
      )
  }
}
