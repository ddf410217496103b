/**
 * The platform public keys that verify callbacks, as `@pc/client`'s verifier takes them: from a
 * PEM file given on the command line, or fetched from the mock's `/dev/platform-keys`.
 */
import { Callback } from "@pc/client"
import type { Environment } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import * as Effect from "effect/Effect"
import { CliFailure, usage } from "./Output.js"

/**
 * Imports PEM platform keys of one environment (by version) into the verifier's key ring.
 *
 * Fails with a usage `CliFailure` when a key is not an RSA public key of 2048 bits or more.
 *
 * @example
 * ```ts
 * import { platformKeyRing } from "./PlatformKeys.js"
 *
 * platformKeyRing("sandbox", new Map([[1, pem]]))
 * ```
 */
export const platformKeyRing = (
  environment: Environment.Environment,
  pems: ReadonlyMap<number, string>
): Effect.Effect<Callback.PlatformKeyRing, CliFailure> =>
  Callback.importPlatformKeys(NodeCrypto, { [environment]: pems }).pipe(
    Effect.mapError((error) => usage(`the platform key cannot verify: ${error.message}`))
  )

/**
 * Verifies one callback with `@pc/client`'s verifier (no replay guard: `pc` checks, it does not
 * accept deliveries); the event, or the refusal as a `Refused` `CliFailure` (exit code 1) with its reason.
 *
 * @example
 * ```ts
 * import { verifyCallback } from "./PlatformKeys.js"
 *
 * verifyCallback({ environment: "sandbox", appKey, platformKeys }, { headers, body })
 * ```
 */
export const verifyCallback = (
  options: {
    readonly environment: Environment.Environment
    readonly appKey: string
    readonly platformKeys: Callback.PlatformKeyRing
  },
  input: Callback.CallbackInput
) =>
  Effect.gen(function* () {
    const verifier = yield* Callback.make({ ...options, replayGuard: false }).pipe(
      Effect.mapError((error) => usage(error.message))
    )
    return yield* verifier.verify(input).pipe(
      Effect.mapError(
        (error) =>
          new CliFailure({
            kind: "Refused",
            code: error.reason,
            message: error.message,
            details: { reason: error.reason, keyVersion: error.keyVersion, header: error.header }
          })
      )
    )
  })
