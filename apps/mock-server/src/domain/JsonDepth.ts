/**
 * How deeply a JSON text nests, found by one linear pass over its characters, before anything that
 * grows with depth runs (JSON.parse, schema decoding, error formatting, re-serialisation).
 * CONTRACT.md: a body nested deeper than 64 levels is paramError naming the field.
 */

/** The deepest nesting the mock accepts in a JSON body (the top-level object is level 1). */
export const MAX_JSON_DEPTH = 64

/** The outcome of {@link checkJsonDepth}: fine, or the field under which the text nests too deep. */
export type JsonDepth =
  | { readonly ok: true; readonly depth: number }
  | {
      /** `false`: the text nests deeper than the limit. */
      readonly ok: false
      /** The top-level key whose value nests too deep, or `"body"` when the body itself does (an array). */
      readonly field: string
    }

const SHOWN_KEY = 64

/** The top-level key that starts at `start` (its opening quote), decoded when it is valid JSON text. */
const keyAt = (text: string, start: number, end: number): string => {
  const raw = text.slice(start, Math.min(end, start + SHOWN_KEY * 6 + 2))
  let key = raw
  try {
    const decoded: unknown = JSON.parse(raw)
    if (typeof decoded === "string") key = decoded
  } catch {
    key = raw.replace(/^"|"$/g, "")
  }
  return key.length > SHOWN_KEY ? `${key.slice(0, SHOWN_KEY)}...` : key
}

/**
 * Measures the nesting of a JSON text in one pass (strings are skipped whole, so brackets inside
 * them do not count) and stops at the first bracket past `limit`. Work and memory are linear in the
 * text's length and constant in its depth. Meant to run before JSON.parse; it does not validate.
 *
 * @example
 * ```ts
 * checkJsonDepth('{"amount":[[1]]}') // { ok: true, depth: 3 }
 * checkJsonDepth(`{"amount":${"[".repeat(100)}${"]".repeat(100)}}`) // { ok: false, field: "amount" }
 * ```
 */
export const checkJsonDepth = (text: string, limit: number = MAX_JSON_DEPTH): JsonDepth => {
  let depth = 0
  let deepest = 0
  // Where the current top-level key starts and ends: the field named when the limit is passed.
  let keyStart = -1
  let keyEnd = -1
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      const start = i
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i)
        if (s === 0x5c /* \ */) i++
        else if (s === 0x22) break
      }
      // A string directly inside the top-level object, followed by a colon, is a key.
      if (depth === 1) {
        let j = i + 1
        while (j < text.length && (text[j] === " " || text[j] === "\t" || text[j] === "\n" || text[j] === "\r")) j++
        if (text[j] === ":") {
          keyStart = start
          keyEnd = i + 1
        }
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth++
      if (depth > deepest) deepest = depth
      if (depth > limit) {
        return { ok: false, field: keyStart === -1 ? "body" : keyAt(text, keyStart, keyEnd) }
      }
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (depth > 0) depth--
    }
  }
  return { ok: true, depth: deepest }
}
