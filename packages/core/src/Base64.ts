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

// The sextet of the character at `i`, or -1 for anything outside the standard alphabet.
const sextet = (text: string, i: number): number => {
  const code = text.charCodeAt(i)
  return code < 128 ? LOOKUP[code]! : -1
}

/**
 * The bytes of `text` when it is canonical standard Base64 (length a multiple of 4, alphabet only,
 * one or two `=` at the end with zero bits before them), in one pass; `undefined` otherwise.
 */
const decodeCanonical = (text: string): Uint8Array | undefined => {
  const length = text.length
  const padding = text.charCodeAt(length - 1) === 61 ? (text.charCodeAt(length - 2) === 61 ? 2 : 1) : 0
  const out = new Uint8Array((length / 4) * 3 - padding)
  const full = padding === 0 ? length : length - 4
  let o = 0
  for (let i = 0; i < full; i += 4) {
    const a = sextet(text, i)
    const b = sextet(text, i + 1)
    const c = sextet(text, i + 2)
    const d = sextet(text, i + 3)
    // Any -1 makes the OR negative: one test for four characters.
    if ((a | b | c | d) < 0) return undefined
    out[o++] = (a << 2) | (b >> 4)
    out[o++] = ((b & 0x0f) << 4) | (c >> 2)
    out[o++] = ((c & 0x03) << 6) | d
  }
  if (padding === 0) return out
  const a = sextet(text, full)
  const b = sextet(text, full + 1)
  if ((a | b) < 0) return undefined
  out[o++] = (a << 2) | (b >> 4)
  if (padding === 2) {
    // Canonical encodings leave the unused low bits zero; anything else is a second spelling.
    return (b & 0x0f) === 0 ? out : undefined
  }
  const c = sextet(text, full + 2)
  if (c < 0 || (c & 0x03) !== 0) return undefined
  out[o] = ((b & 0x0f) << 4) | (c >> 2)
  return out
}

/** Why `text`, which {@link decodeCanonical} refused, is not strict Base64: the integrator's mistake first. */
const refusal = (text: string): Base64DecodeErrorReason => {
  const length = text.length
  let padding = 0
  if (text.charCodeAt(length - 1) === 61) padding = text.charCodeAt(length - 2) === 61 ? 2 : 1
  for (let i = 0; i < length - padding; i++) {
    if (sextet(text, i) < 0) {
      // Name the integrator's mistake first (whitespace, URL-encoding, URL-safe alphabet); only a
      // misplaced "=" in otherwise clean text is a padding problem.
      const reason = classify(text)
      return reason === "InvalidCharacter" && text.charCodeAt(i) === 61 ? "BadPadding" : reason
    }
  }
  return length % 4 !== 0 ? "BadLength" : "BadPadding"
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
  // The valid case is the hot one (every signature checked): one pass, and the reason is worked
  // out only for a refused text.
  const bytes = length % 4 === 0 ? decodeCanonical(text) : undefined
  return bytes === undefined ? fail(refusal(text)) : { ok: true, bytes }
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
