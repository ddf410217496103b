// Signature texts near a valid one: what a property test feeds a verifier to show it accepts the one
// exact spelling and nothing else (stray characters, URL-safe letters, lost padding, whitespace).
import fc from "fast-check"

const ALPHABET = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_% \n"]

const edit = (length: number) =>
  fc.record({
    at: fc.nat({ max: length }),
    remove: fc.nat({ max: 3 }),
    insert: fc.array(fc.constantFrom(...ALPHABET), { maxLength: 3 })
  })

/**
 * `signature` with 0 to 3 small edits (each removes up to 3 characters and inserts up to 3 from
 * Base64's alphabet, its URL-safe variant, `%`, space and newline), at least `minEdits` of them.
 * An edit may remove and insert nothing, and edits may cancel out: the text can come back
 * unchanged whatever `minEdits` is, so a property compares it with the signature.
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(editedSignature(v.signature, 1), async (text) => { ... }))
 * ```
 */
export const editedSignature = (signature: string, minEdits = 0): fc.Arbitrary<string> =>
  fc.array(edit(signature.length), { minLength: minEdits, maxLength: 3 }).map((edits) => {
    let text = signature
    for (const e of edits) text = text.slice(0, e.at) + e.insert.join("") + text.slice(e.at + e.remove)
    return text
  })
