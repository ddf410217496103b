// UTF-8 helpers over TextEncoder/TextDecoder, present in every runtime the client supports.

const encoder = /* @__PURE__ */ new TextEncoder()

/** The UTF-8 bytes of a string. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

/** Decodes strict UTF-8; `undefined` for invalid bytes, so nothing is silently replaced. */
export const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/** `a` followed by `b`, in a new array. */
export const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}
