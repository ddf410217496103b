/**
 * The raw text of each top-level member of a JSON object, as it was written. `JSON.parse` forgets
 * how a number was written (`10.500`, `1e2` and `99999999999.9999999` all lose digits) and lets the
 * last of two equal keys win silently; the create-order body needs both facts, because the
 * signature covers the text and the amount's precision is a rule of the contract.
 */

/** The outcome of {@link objectMembers}: each key's raw value text, or why there is none. */
export type ObjectMembers =
  | { readonly ok: true; readonly members: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly message: string }

// JSON's whitespace (RFC 8259 section 2): nothing else, not even a BOM or a no-break space.
const isWhitespace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r"

/**
 * Whether the text between `from` and `to` (a string's, without its quotes) is its own value: no
 * escape, and no control character (which JSON refuses unescaped, so JSON.parse must judge it).
 */
const isPlainString = (text: string, from: number, to: number): boolean => {
  for (let j = from; j < to; j++) {
    const c = text.charCodeAt(j)
    if (c === 0x5c || c < 0x20) return false
  }
  return true
}

/** The index just past the string that starts (with its opening quote) at `start`. */
const endOfString = (text: string, start: number): number => {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]
    if (c === "\\") i++
    else if (c === '"') return i + 1
  }
  return -1
}

/** The index just past the value that starts at `start`: a string, an object or array, or a literal or number. */
const endOfValue = (text: string, start: number): number => {
  const first = text[start]
  if (first === '"') return endOfString(text, start)
  if (first === "{" || first === "[") {
    // Depth only: the nested text was already checked by JSON.parse, and strings are skipped whole
    // so that brackets inside them do not count.
    let depth = 0
    for (let i = start; i < text.length; ) {
      const c = text[i]
      if (c === '"') {
        i = endOfString(text, i)
        if (i === -1) return -1
        continue
      }
      if (c === "{" || c === "[") depth++
      else if (c === "}" || c === "]") depth--
      i++
      if (depth === 0) return i
    }
    return -1
  }
  let i = start
  while (i < text.length && !isWhitespace(text[i]) && text[i] !== "," && text[i] !== "}" && text[i] !== "]") i++
  return i === start ? -1 : i
}

/**
 * Splits the text of a JSON object into its top-level members: each key (decoded) with the exact
 * text of its value. Meant for text that `JSON.parse` accepted as an object; fails with a message
 * on a key that appears twice (`duplicate key "orderId"`) or on text that is not an object.
 *
 * @example
 * ```ts
 * objectMembers('{"orderId":"M-1","amount":10.500}')
 * // { ok: true, members: Map { "orderId" => '"M-1"', "amount" => "10.500" } }
 * objectMembers('{"a":1,"a":2}') // { ok: false, message: 'duplicate key "a"' }
 * ```
 */
export const objectMembers = (text: string): ObjectMembers => {
  const members = new Map<string, string>()
  const malformed = { ok: false, message: "not a JSON object" } as const
  let i = 0
  const skipWhitespace = () => {
    while (isWhitespace(text[i])) i++
  }
  skipWhitespace()
  if (text[i] !== "{") return malformed
  i++
  skipWhitespace()
  if (text[i] === "}") return { ok: true, members }
  for (;;) {
    if (text[i] !== '"') return malformed
    const keyEnd = endOfString(text, i)
    if (keyEnd === -1) return malformed
    // A key with no escape and no control character is its own text; only the others are decoded.
    let key: unknown = text.slice(i + 1, keyEnd - 1)
    if (!isPlainString(text, i + 1, keyEnd - 1)) {
      try {
        key = JSON.parse(text.slice(i, keyEnd))
      } catch {
        return malformed
      }
    }
    if (typeof key !== "string") return malformed
    i = keyEnd
    skipWhitespace()
    if (text[i] !== ":") return malformed
    i++
    skipWhitespace()
    const valueEnd = endOfValue(text, i)
    if (valueEnd === -1) return malformed
    if (members.has(key)) {
      const shown = key.length > 64 ? `${key.slice(0, 64)}...` : key
      return { ok: false, message: `duplicate key ${JSON.stringify(shown)}` }
    }
    members.set(key, text.slice(i, valueEnd))
    i = valueEnd
    skipWhitespace()
    if (text[i] === ",") {
      i++
      skipWhitespace()
      continue
    }
    return text[i] === "}" ? { ok: true, members } : malformed
  }
}

/**
 * Whether a member's raw text is a JSON number (rather than a string, object, array or literal).
 *
 * @example
 * ```ts
 * isNumberText("10.500") // true
 * isNumberText('"10.50"') // false
 * ```
 */
export const isNumberText = (raw: string): boolean => /^-?[0-9]/.test(raw)
