// UTF-8 encoding without TextEncoder: @pc/core uses no globals beyond the language.

/** Number of UTF-8 bytes needed for `text` (lone surrogates count as U+FFFD, as TextEncoder does). */
export const utf8Length = (text: string): number => {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/** Writes the UTF-8 bytes of `text` into `out` at `offset`; returns the offset after the last byte. */
export const utf8Write = (text: string, out: Uint8Array, offset: number): number => {
  let o = offset
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i)
    if (c < 0x80) {
      out[o++] = c
      continue
    }
    if (c < 0x800) {
      out[o++] = 0xc0 | (c >> 6)
      out[o++] = 0x80 | (c & 0x3f)
      continue
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
      if (c <= 0xdbff && isLow(next)) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00)
        i++
        out[o++] = 0xf0 | (c >> 18)
        out[o++] = 0x80 | ((c >> 12) & 0x3f)
        out[o++] = 0x80 | ((c >> 6) & 0x3f)
        out[o++] = 0x80 | (c & 0x3f)
        continue
      }
      c = 0xfffd
    }
    out[o++] = 0xe0 | (c >> 12)
    out[o++] = 0x80 | ((c >> 6) & 0x3f)
    out[o++] = 0x80 | (c & 0x3f)
  }
  return o
}

/** The UTF-8 bytes of `text`. */
export const utf8Encode = (text: string): Uint8Array => {
  const out = new Uint8Array(utf8Length(text))
  utf8Write(text, out, 0)
  return out
}
