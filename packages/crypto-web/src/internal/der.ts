// WebCrypto imports only PKCS#8 and SPKI, so PKCS#1 keys are wrapped in those envelopes here.

const encodeLength = (length: number): Array<number> => {
  if (length < 0x80) return [length]
  const bytes: Array<number> = []
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff)
  return [0x80 | bytes.length, ...bytes]
}

const tlv = (tag: number, ...parts: ReadonlyArray<ArrayLike<number>>): Uint8Array => {
  const contentLength = parts.reduce((sum, part) => sum + part.length, 0)
  const header = [tag, ...encodeLength(contentLength)]
  const out = new Uint8Array(header.length + contentLength)
  out.set(header, 0)
  let offset = header.length
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

// AlgorithmIdentifier { rsaEncryption (1.2.840.113549.1.1.1), NULL }
const RSA_ALGORITHM = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]

/** PKCS#1 RSAPrivateKey DER to PKCS#8 PrivateKeyInfo DER (RFC 5208): version 0, algorithm, key as OCTET STRING. */
export const pkcs1PrivateToPkcs8 = (pkcs1: Uint8Array): Uint8Array =>
  tlv(0x30, [0x02, 0x01, 0x00], RSA_ALGORITHM, tlv(0x04, pkcs1))

/** PKCS#1 RSAPublicKey DER to SubjectPublicKeyInfo DER (RFC 5280): algorithm, key as BIT STRING with 0 unused bits. */
export const pkcs1PublicToSpki = (pkcs1: Uint8Array): Uint8Array => tlv(0x30, RSA_ALGORITHM, tlv(0x03, [0x00], pkcs1))
