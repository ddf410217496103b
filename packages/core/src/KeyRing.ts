/**
 * Versioned keys: versions mapped to keys, the current version for signing, lookup by version for
 * verifying. Rotation (spec 5.6) is adding a version, switching `current`, and later dropping the
 * old one: each step makes a new ring, so a ring in use never changes under a request.
 *
 * @since 0.1.0
 */
import type { CryptoProvider, Signer, Verifier } from "./Crypto.js"
import { isKeyVersion, type KeyVersion } from "./KeyVersion.js"

/**
 * Keys by version, with the version used for signing.
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 *
 * const ring = KeyRing.make({ 1: "key-one", 2: "key-two" }, 2)
 * ring.currentKey // "key-two"
 * ring.get(1) // "key-one"
 * ```
 */
export interface KeyRing<K> {
  /** The version that signs. */
  readonly current: KeyVersion
  /** The key of {@link current}. */
  readonly currentKey: K
  /** Every version held, ascending. */
  readonly versions: ReadonlyArray<KeyVersion>
  /** The key of a version, or `undefined` when the ring does not hold it. */
  get(version: KeyVersion): K | undefined
}

/**
 * A ring that cannot be made: a version that is not a natural number or given twice, no keys, or a
 * current version it does not hold. `code` is always `ERR_PC_KEY_RING`; `reason` names the case.
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 *
 * const ring = KeyRing.make({ 1: "key-one", 2: "key-two" }) // current: 2
 * try {
 *   KeyRing.remove(ring, 2)
 * } catch (error) {
 *   if (error instanceof KeyRing.KeyRingError) console.error(error.reason) // "UnknownCurrentVersion"
 * }
 * ```
 */
export class KeyRingError extends Error {
  readonly _tag = "KeyRingError"
  readonly code = "ERR_PC_KEY_RING"
  constructor(
    readonly reason: "InvalidVersion" | "DuplicateVersion" | "Empty" | "UnknownCurrentVersion",
    message: string
  ) {
    super(message)
    this.name = "KeyRingError"
  }
}

/**
 * Keys given as a `Map`, a record keyed by version, or `[version, key]` pairs.
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 *
 * const byRecord: KeyRing.KeyEntries<string> = { 1: "key-one", 2: "key-two" }
 * const byPairs: KeyRing.KeyEntries<string> = [[1, "key-one"], [2, "key-two"]]
 * KeyRing.make(byPairs).versions // [1, 2]
 * ```
 */
export type KeyEntries<K> =
  | ReadonlyMap<KeyVersion, K>
  | { readonly [version: number]: K }
  | Iterable<readonly [KeyVersion, K]>

const entriesOf = <K>(keys: KeyEntries<K>): Array<readonly [KeyVersion, K]> => {
  if (Symbol.iterator in keys) return Array.from(keys as Iterable<readonly [KeyVersion, K]>)
  return Object.entries(keys as { readonly [version: number]: K }).map(([version, key]) => {
    // Record keys are strings: only the plain decimal spelling of a natural number is a version.
    const n = /^[1-9][0-9]*$/.test(version) ? Number(version) : Number.NaN
    if (!isKeyVersion(n))
      throw new KeyRingError("InvalidVersion", `key version ${JSON.stringify(version)} is not a natural number`)
    return [n, key] as const
  })
}

/**
 * Makes a key ring. `current` defaults to the highest version held.
 *
 * Throws {@link KeyRingError} for a version that is not a natural number, an empty ring, or a
 * `current` the ring does not hold.
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 *
 * const ring = KeyRing.make(new Map([[1, signerV1], [2, signerV2]])) // current: 2
 * ```
 */
export const make = <K>(keys: KeyEntries<K>, current?: KeyVersion): KeyRing<K> => {
  const map = new Map<KeyVersion, K>()
  for (const [version, key] of entriesOf(keys)) {
    if (!isKeyVersion(version))
      throw new KeyRingError("InvalidVersion", `key version ${version} is not a natural number`)
    if (map.has(version)) throw new KeyRingError("DuplicateVersion", `key version ${version} is given twice`)
    map.set(version, key)
  }
  if (map.size === 0) throw new KeyRingError("Empty", "a key ring needs at least one key")
  const versions = Object.freeze(Array.from(map.keys()).sort((a, b) => a - b))
  const currentVersion = current ?? versions[versions.length - 1]!
  const currentKey = map.get(currentVersion)
  if (currentKey === undefined) {
    throw new KeyRingError(
      "UnknownCurrentVersion",
      `current key version ${currentVersion} is not in the ring (it holds ${versions.join(", ")})`
    )
  }
  return {
    current: currentVersion,
    currentKey,
    versions,
    get: (version) => map.get(version)
  }
}

const entries = <K>(ring: KeyRing<K>): Array<readonly [KeyVersion, K]> => ring.versions.map((v) => [v, ring.get(v)!])

/**
 * A new ring with `key` added (or replaced) at `version`; the current version stays.
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 *
 * const next = KeyRing.withCurrent(KeyRing.add(ring, 2, signerV2), 2)
 * ```
 */
export const add = <K>(ring: KeyRing<K>, version: KeyVersion, key: K): KeyRing<K> =>
  make<K>([...entries(ring).filter(([v]) => v !== version), [version, key]], ring.current)

/**
 * A new ring that signs with `version`. Throws {@link KeyRingError} when the ring does not hold it.
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 *
 * KeyRing.withCurrent(ring, 2).current // 2
 * ```
 */
export const withCurrent = <K>(ring: KeyRing<K>, version: KeyVersion): KeyRing<K> => make<K>(entries(ring), version)

/**
 * A new ring without `version`. Throws {@link KeyRingError} when that is the current version:
 * switch first, then drop (after the 7 days of spec 5.6).
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 *
 * KeyRing.remove(ring, 1).versions // [2]
 * ```
 */
export const remove = <K>(ring: KeyRing<K>, version: KeyVersion): KeyRing<K> =>
  make<K>(
    entries(ring).filter(([v]) => v !== version),
    ring.current
  )

/**
 * Imports private keys from PEM through a crypto adapter, each parsed once, into a signing ring.
 *
 * Rejects with `KeyImportError` (bad or weak key) or {@link KeyRingError}.
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const ring = await KeyRing.importSigners(NodeCrypto, { 1: pemV1, 2: pemV2 }, 2)
 * ```
 */
export const importSigners = async (
  provider: CryptoProvider,
  pems: KeyEntries<string>,
  current?: KeyVersion
): Promise<KeyRing<Signer>> => {
  const pairs = entriesOf(pems)
  const keys = await Promise.all(pairs.map(async ([v, pem]) => [v, await provider.importPrivateKey(pem)] as const))
  return make<Signer>(keys, current)
}

/**
 * Imports public keys (PEM or bare Base64) through a crypto adapter into a verifying ring.
 *
 * Rejects with `KeyImportError` (bad or weak key) or {@link KeyRingError}.
 *
 * @example
 * ```ts
 * import { KeyRing } from "@pc/core"
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const platform = await KeyRing.importVerifiers(NodeCrypto, { 1: platformV1Pem, 2: platformV2Pem })
 * ```
 */
export const importVerifiers = async (
  provider: CryptoProvider,
  pems: KeyEntries<string>,
  current?: KeyVersion
): Promise<KeyRing<Verifier>> => {
  const pairs = entriesOf(pems)
  const keys = await Promise.all(pairs.map(async ([v, pem]) => [v, await provider.importPublicKey(pem)] as const))
  return make<Verifier>(keys, current)
}
