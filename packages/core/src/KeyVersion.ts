/**
 * Key versions: natural numbers 1, 2, 3, ... In a merchant request the n-th public-key upload is
 * version n; in a callback it is the version of the platform key (spec 5.2, 5.5, 9).
 *
 * @since 0.1.0
 */

/**
 * A key version: a safe integer >= 1.
 *
 * @example
 * ```ts
 * import { KeyVersion } from "@pc/core"
 *
 * const version: KeyVersion.KeyVersion | undefined = KeyVersion.parse("2") // 2
 * ```
 */
export type KeyVersion = number

/**
 * Tells whether a number is a valid key version.
 *
 * @example
 * ```ts
 * import { KeyVersion } from "@pc/core"
 *
 * KeyVersion.isKeyVersion(2) // true
 * KeyVersion.isKeyVersion(0) // false
 * ```
 */
export const isKeyVersion = (value: unknown): value is KeyVersion =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1

/**
 * Parses the text of `X-R-KEY-VERSION` / `X-R-Key-Version`: digits, no sign, no leading zero,
 * at least 1. Returns `undefined` for anything else ("v1", "01", "1.0", " 1").
 *
 * @example
 * ```ts
 * import { KeyVersion } from "@pc/core"
 *
 * KeyVersion.parse("2") // 2
 * KeyVersion.parse("v2") // undefined
 * ```
 */
export const parse = (text: string): KeyVersion | undefined => {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return undefined
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : undefined
}
