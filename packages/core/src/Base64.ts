/**
 * Strict standard Base64 (RFC 4648 section 4, with padding) without Buffer or atob, so the same
 * code decides in every runtime what a valid `X-R-Signature` is.
 *
 * @since 0.1.0
 */

/**
 * Why a text is not strict standard Base64; each mistake integrators make has its own reason.
 *
 * @example
 * ```ts
 * import { Base64 } from "@pc/core"
 *
 * const result = Base64.decode("aGk%3D")
 * const reason: Base64.Base64DecodeErrorReason | undefined = result.ok ? undefined : result.error.reason // "PercentEncoded"
 * ```
 */
export type Base64DecodeErrorReason =
  | "Empty"
  | "Whitespace"
  | "PercentEncoded"
  | "UrlSafeAlphabet"
  | "InvalidCharacter"
  | "BadLength"
  | "BadPadding"

/**
 * A failed decode: the reason, and a message that names the usual cause.
 *
 * @example
 * ```ts
 * import { Base64 } from "@pc/core"
 *
 * const result = Base64.decode("aGk")
 * if (!result.ok) console.log(result.error.message)
 * // "the Base64 text length is not a multiple of 4; standard Base64 is padded with '='"
 * ```
 */
export interface Base64DecodeError {
  readonly _tag: "Base64DecodeError"
  readonly reason: Base64DecodeErrorReason
  readonly message: string
}

/**
 * The result of {@link decode}: the bytes, or why the text was refused.
 *
 * @example
 * ```ts
 * import { Base64 } from "@pc/core"
 *
 * const result: Base64.Base64DecodeResult = Base64.decode("aGk=")
 * const bytes = result.ok ? result.bytes : undefined // Uint8Array [104, 105]
 * ```
 */
export type Base64DecodeResult =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly error: Base64DecodeError }

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// 0..63 for alphabet characters, -1 for anything else.
const LOOKUP = /* @__PURE__ */ (() => {
  const table = new Int16Array(128).fill(-1)
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i
  return table
})()

const MESSAGES: Record<Base64DecodeErrorReason, string> = {
  Empty: "the Base64 text is empty",
  Whitespace: "the Base64 text contains whitespace or a line break; send it on one line, unwrapped",
  PercentEncoded:
    "the Base64 text is URL-encoded (it contains %2B, %2F or %3D); send raw Base64, do not URL-encode the signature",
  UrlSafeAlphabet:
    "the Base64 text uses the URL-safe alphabet ('-' or '_'); use the standard alphabet with '+' and '/'",
  InvalidCharacter: "the Base64 text contains a character outside the standard alphabet",
  BadLength: "the Base64 text length is not a multiple of 4; standard Base64 is padded with '='",
  BadPadding: "the Base64 padding is wrong: '=' may only appear once or twice, at the end, with zero bits before it"
}

const fail = (reason: Base64DecodeErrorReason): Base64DecodeResult => ({
  ok: false,
  error: { _tag: "Base64DecodeError", reason, message: MESSAGES[reason] }
})

const classify = (text: string): Base64DecodeErrorReason => {
  if (/\s/.test(text)) return "Whitespace"
  if (/%[0-9A-Fa-f]{2}/.test(text)) return "PercentEncoded"
  if (/[-_]/.test(text)) return "UrlSafeAlphabet"
  return "InvalidCharacter"
}

/**
 * Decodes strict standard Base64: standard alphabet, padded to a multiple of four, no whitespace,
 * and no stray bits before the padding.
 *
 * Never throws: a refused text gives `{ ok: false, error }` with a distinct `reason`.
 *
 * @example
 * ```ts
 * import { Base64 } from "@pc/core"
 *
 * const result = Base64.decode("aGk=")
 * if (result.ok) console.log(result.bytes) // Uint8Array [104, 105]
 * Base64.decode("aGk%3D") // { ok: false, error: { reason: "PercentEncoded", ... } }
 * ```
 */
export const decode = (text: string): Base64DecodeResult => {
  const length = text.length
  if (length === 0) return fail("Empty")
  let padding = 0
  if (text.charCodeAt(length - 1) === 61) padding = text.charCodeAt(length - 2) === 61 ? 2 : 1
  const dataLength = length - padding
  for (let i = 0; i < dataLength; i++) {
    const code = text.charCodeAt(i)
    if (code >= 128 || LOOKUP[code]! < 0) {
      // Name the integrator's mistake first (whitespace, URL-encoding, URL-safe alphabet); only a
      // misplaced "=" in otherwise clean text is a padding problem.
      const reason = classify(text)
      return fail(reason === "InvalidCharacter" && code === 61 ? "BadPadding" : reason)
    }
  }
  if (length % 4 !== 0) return fail("BadLength")
  const out = new Uint8Array((length / 4) * 3 - padding)
  let o = 0
  let i = 0
  for (; i + 4 <= dataLength; i += 4) {
    const n =
      (LOOKUP[text.charCodeAt(i)]! << 18) |
      (LOOKUP[text.charCodeAt(i + 1)]! << 12) |
      (LOOKUP[text.charCodeAt(i + 2)]! << 6) |
      LOOKUP[text.charCodeAt(i + 3)]!
    out[o++] = n >> 16
    out[o++] = (n >> 8) & 0xff
    out[o++] = n & 0xff
  }
  if (padding === 2) {
    const a = LOOKUP[text.charCodeAt(i)]!
    const b = LOOKUP[text.charCodeAt(i + 1)]!
    // Canonical encodings leave the unused low bits zero; anything else is a second spelling.
    if ((b & 0x0f) !== 0) return fail("BadPadding")
    out[o] = (a << 2) | (b >> 4)
  } else if (padding === 1) {
    const a = LOOKUP[text.charCodeAt(i)]!
    const b = LOOKUP[text.charCodeAt(i + 1)]!
    const c = LOOKUP[text.charCodeAt(i + 2)]!
    if ((c & 0x03) !== 0) return fail("BadPadding")
    out[o++] = (a << 2) | (b >> 4)
    out[o] = ((b & 0x0f) << 4) | (c >> 2)
  }
  return { ok: true, bytes: out }
}

/**
 * Encodes bytes as standard, padded Base64 (the form `X-R-Signature` carries).
 *
 * @example
 * ```ts
 * import { Base64 } from "@pc/core"
 *
 * Base64.encode(new Uint8Array([104, 105])) // "aGk="
 * ```
 */
export const encode = (bytes: Uint8Array): string => {
  let out = ""
  const length = bytes.length
  let i = 0
  for (; i + 3 <= length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!
  }
  const rest = length - i
  if (rest === 1) {
    const n = bytes[i]! << 16
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + "=="
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8)
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + "="
  }
  return out
}
