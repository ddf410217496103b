// A minimal DER reader: just enough to tell RSA key structures apart and read the modulus length.

export interface Tlv {
  readonly tag: number
  /** Offset of the first content byte. */
  readonly start: number
  /** Offset just past the last content byte. */
  readonly end: number
}

/** Reads the TLV at `offset`, or `undefined` when the bytes are not a well-formed DER TLV within `limit`. */
export const readTlv = (der: Uint8Array, offset: number, limit: number = der.length): Tlv | undefined => {
  if (offset + 2 > limit) return undefined
  const tag = der[offset]!
  let length = der[offset + 1]!
  let start = offset + 2
  if (length & 0x80) {
    const count = length & 0x7f
    // DER: long form only when needed, no indefinite length, at most 4 length bytes here.
    if (count === 0 || count > 4 || start + count > limit) return undefined
    length = 0
    for (let i = 0; i < count; i++) length = length * 256 + der[start + i]!
    start += count
    // Minimal encoding only: no long form for short lengths, no leading zero length byte.
    if (length < 0x80 || der[offset + 2] === 0) return undefined
  }
  const end = start + length
  if (end > limit) return undefined
  return { tag, start, end }
}

/** The children of a constructed TLV, or `undefined` if they do not exactly fill it. */
export const children = (der: Uint8Array, parent: Tlv): ReadonlyArray<Tlv> | undefined => {
  const out: Array<Tlv> = []
  let offset = parent.start
  while (offset < parent.end) {
    const child = readTlv(der, offset, parent.end)
    if (child === undefined) return undefined
    out.push(child)
    offset = child.end
  }
  return out
}

export const SEQUENCE = 0x30
export const INTEGER = 0x02
export const BIT_STRING = 0x03
export const OCTET_STRING = 0x04
export const OID = 0x06

/** DER of OID 1.2.840.113549.1.1.1 (rsaEncryption), content bytes only. */
export const RSA_ENCRYPTION_OID = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01] as const

/** Bit length of a DER INTEGER's unsigned value (leading zero bytes ignored). */
export const integerBitLength = (der: Uint8Array, integer: Tlv): number => {
  let i = integer.start
  while (i < integer.end && der[i] === 0) i++
  if (i === integer.end) return 0
  return (integer.end - i - 1) * 8 + (32 - Math.clz32(der[i]!))
}

export const isRsaAlgorithm = (der: Uint8Array, algorithm: Tlv): boolean => {
  const parts = children(der, algorithm)
  const oid = parts?.[0]
  if (oid === undefined || oid.tag !== OID || oid.end - oid.start !== RSA_ENCRYPTION_OID.length) return false
  for (let i = 0; i < RSA_ENCRYPTION_OID.length; i++) if (der[oid.start + i] !== RSA_ENCRYPTION_OID[i]) return false
  return true
}
