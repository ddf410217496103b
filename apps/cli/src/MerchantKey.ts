/**
 * The merchant's signing key as the settings name it (key file and version), imported once with
 * `@pc/crypto-node` into a `@pc/core` key ring. Errors name the file, never the key.
 */
import { type Crypto, KeyRing } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import * as Effect from "effect/Effect"
import { keyFile } from "./Input.js"
import { type CliFailure, usage } from "./Output.js"
import { requireKeyFile, type Settings } from "./Settings.js"

/**
 * The signing ring of the configured key file, current version = the configured key version.
 *
 * Fails with a usage `CliFailure` when no key file is set, it cannot be read, or it is not an RSA
 * private key of 2048 bits or more.
 *
 * @example
 * ```ts
 * import { signerRing } from "./MerchantKey.js"
 *
 * const ring = yield* signerRing(settings)
 * ```
 */
export const signerRing = (settings: Settings): Effect.Effect<KeyRing.KeyRing<Crypto.Signer>, CliFailure> =>
  Effect.gen(function* () {
    const file = yield* requireKeyFile(settings)
    const pem = yield* keyFile(file, "private key file")
    return yield* Effect.tryPromise({
      try: () => KeyRing.importSigners(NodeCrypto, new Map([[settings.keyVersion, pem]])),
      catch: (error) =>
        usage(
          `the private key file ${file} cannot sign: ${error instanceof Error ? error.message : String(error)}`,
          "give the PKCS#8 file that npx pc keys generate wrote (merchant-private.pem)"
        )
    })
  })
