// Key entries by version and key-import failures as ConfigurationErrors: shared by the client
// (merchant private keys), the callback verifier (platform public keys) and the Promise facade.
import { type KeyRing, KeyVersion } from "@pc/core"
import * as Either from "effect/Either"
import { ConfigurationError } from "../PaymentClientError.js"

const versionOf = (version: unknown): number | undefined => {
  if (typeof version === "number") return KeyVersion.isKeyVersion(version) ? version : undefined
  // Record keys are strings: only the plain decimal spelling of a natural number is a version.
  if (typeof version === "string") return KeyVersion.parse(version)
  return undefined
}

const shown = (version: unknown): string => (typeof version === "string" ? JSON.stringify(version) : String(version))

/**
 * The `[version, key]` pairs of keys given as a `Map`, a record keyed by version, or pairs, each
 * version checked; fails naming the first version that is not a natural number (`"v1"`, `0`).
 */
export const keyEntries = <K>(
  keys: KeyRing.KeyEntries<K>,
  option: string
): Either.Either<Array<readonly [number, K]>, ConfigurationError> => {
  if (keys === null || typeof keys !== "object") {
    return Either.left(
      new ConfigurationError({
        message: `invalid option ${option}: expected keys by version, e.g. { 1: pem }`,
        reason: "InvalidOption",
        option
      })
    )
  }
  const pairs: ReadonlyArray<readonly [unknown, K]> =
    Symbol.iterator in keys
      ? Array.from(keys as Iterable<readonly [unknown, K]>)
      : Object.entries(keys as { readonly [version: number]: K })
  const out: Array<readonly [number, K]> = []
  for (const [version, key] of pairs) {
    const n = versionOf(version)
    if (n === undefined) {
      return Either.left(
        new ConfigurationError({
          message: `invalid option ${option}: key version ${shown(version)} is not a natural number (1, 2, 3, ...)`,
          reason: "InvalidOption",
          option
        })
      )
    }
    out.push([n, key])
  }
  return Either.right(out)
}

/**
 * A failure of a key import or of building a key ring (`KeyImportError`, `KeyRingError` of
 * `@pc/core`, or a provider's own error) as a ConfigurationError for `option`.
 */
export const keyImportError = (error: unknown, option: string): ConfigurationError => {
  const tagged = error as { readonly _tag?: unknown; readonly reason?: unknown; readonly message?: unknown } | null
  const message = `${option}: ${typeof tagged?.message === "string" ? tagged.message : "the key could not be imported"}`
  if (tagged?._tag === "KeyImportError") {
    return new ConfigurationError({ message, reason: tagged.reason === "WeakKey" ? "WeakKey" : "BadKey", option })
  }
  if (tagged?._tag === "KeyRingError") {
    return new ConfigurationError({
      message,
      reason: tagged?.reason === "UnknownCurrentVersion" ? "UnknownKeyVersion" : "InvalidOption",
      option
    })
  }
  return new ConfigurationError({ message, reason: "BadKey", option })
}
