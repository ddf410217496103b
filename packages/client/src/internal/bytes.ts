// UTF-8 helpers over TextEncoder/TextDecoder, present in every runtime the client supports.

const encoder = /* @__PURE__ */ new TextEncoder()

// Made once: a decoder that is not streaming keeps no state between decode() calls.
const strictDecoder = /* @__PURE__ */ new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The UTF-8 bytes of a string. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

/** Decodes strict UTF-8; `undefined` for invalid bytes, so nothing is silently replaced. */
export const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return strictDecoder.decode(bytes)
  } catch {
    return undefined
  }
}

/** The chunks one after the other in one new array of `size` bytes (their total length). */
export const joinChunks = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}
