// Imports merchant private keys into a signing ring, and checks a ring given ready-made.
import { Crypto, KeyRing } from "@pc/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import { ConfigurationError } from "../PaymentClientError.js"
import { invalidOption } from "./clientOptions.js"
import { keyEntries, keyImportError } from "./keys.js"

/** Each key parsed once and checked (RSA, 2048 bits or more); see `PaymentClient.importKeyRing`. */
export const importRing = (
  crypto: Crypto.CryptoProvider,
  privateKeys: KeyRing.KeyEntries<Redacted.Redacted<string>>,
  current?: number
): Effect.Effect<KeyRing.KeyRing<Crypto.Signer>, ConfigurationError> =>
  Effect.gen(function* () {
    const entries = yield* keyEntries(privateKeys, "privateKeys")
    const pems = new Map<number, string>()
    for (const [n, pem] of entries) {
      if (!Redacted.isRedacted(pem)) {
        return yield* invalidOption(
          `privateKeys[${n}]`,
          "expected the PEM as Redacted.make(pem), so it never lands in logs"
        )
      }
      pems.set(n, Redacted.value(pem))
    }
    const signers = new Map<number, Crypto.Signer>()
    for (const [version, pem] of pems) {
      const signer = yield* Effect.tryPromise({
        try: () => crypto.importPrivateKey(pem),
        catch: (error) => keyImportError(error, `privateKeys[${version}]`)
      })
      signers.set(version, signer)
    }
    return yield* Effect.try({
      try: () => KeyRing.make(signers, current),
      catch: (error) => keyImportError(error, "currentKeyVersion")
    })
  })

export const checkRing = (
  ring: KeyRing.KeyRing<Crypto.Signer>
): Either.Either<KeyRing.KeyRing<Crypto.Signer>, ConfigurationError> => {
  if (ring === null || typeof ring !== "object" || typeof ring.get !== "function" || ring.currentKey === undefined) {
    return Either.left(
      invalidOption("keyRing", "expected a KeyRing of signers (KeyRing.make or KeyRing.importSigners)")
    )
  }
  for (const version of ring.versions) {
    const signer = ring.get(version)
    if (signer === undefined || typeof signer.sign !== "function") {
      return Either.left(invalidOption(`keyRing[${version}]`, "expected a Signer"))
    }
    if (!(signer.modulusLength >= Crypto.MIN_MODULUS_LENGTH)) {
      return Either.left(
        new ConfigurationError({
          message: `keyRing[${version}]: RSA key of ${signer.modulusLength} bits refused: keys must be ${Crypto.MIN_MODULUS_LENGTH} bits or more`,
          reason: "WeakKey",
          option: `keyRing[${version}]`
        })
      )
    }
  }
  return Either.right(ring)
}
