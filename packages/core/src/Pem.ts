/**
 * PEM and DER decoding of RSA keys, shared by every crypto adapter so that they accept and refuse
 * exactly the same inputs with the same reasons. Pure: no Buffer, no crypto.
 *
 * @since 0.1.0
 */
import * as Base64 from "./Base64.js"
import { KeyImportError, MIN_MODULUS_LENGTH } from "./Crypto.js"
import * as Der from "./internal/der.js"

/**
 * The DER structures an RSA key may come in.
 *
 * @example
 * ```ts
 * import { Pem } from "@pc/core"
 *
 * const format: Pem.KeyFormat = Pem.decodePublicKey(platformPublicKeyPem).format // "spki" or "pkcs1-public"
 * ```
 */
export type KeyFormat = "pkcs8" | "pkcs1-private" | "spki" | "pkcs1-public"

/**
 * A decoded RSA key: its DER bytes as given, their structure, and the modulus length in bits.
 *
 * @example
 * ```ts
 * import { Pem } from "@pc/core"
 *
 * const key: Pem.RsaKeyDer = Pem.decodePrivateKey(pem)
 * console.log(`${key.format}, ${key.modulusLength} bits`) // "pkcs8, 2048 bits"
 * ```
 */
export interface RsaKeyDer {
  readonly format: KeyFormat
  readonly der: Uint8Array
  readonly modulusLength: number
}

// One PEM block; the body may start on the BEGIN line and be wrapped or not (some tools print it on one line).
const PEM = /^-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END ([A-Z0-9 ]+)-----/

const malformed = (message: string) => new KeyImportError("MalformedKey", message)
const unsupported = (message: string) => new KeyImportError("UnsupportedKey", message)

const decodeBody = (body: string, what: string): Uint8Array => {
  // PEM bodies are wrapped at 64 characters; the line breaks are not part of the Base64.
  const decoded = Base64.decode(body.replace(/[\r\n\t ]+/g, ""))
  if (!decoded.ok) throw malformed(`${what} is not valid Base64: ${decoded.error.message}`)
  return decoded.bytes
}

/**
 * Makes the text of a key as forgiving as it safely can be: a value that is not a string is named
 * (usually an unset environment variable), and a PEM whose line breaks arrived as the two
 * characters backslash and n (the classic `.env` mistake) gets its line breaks back.
 */
const normalise = (text: unknown, what: string): string => {
  if (typeof text !== "string") {
    throw malformed(
      `${what} is not a string but ${text === null ? "null" : typeof text} (is the environment variable set?)`
    )
  }
  const trimmed = text.trim()
  return trimmed.includes("\\n") && !trimmed.includes("\n") ? trimmed.replace(/\\n/g, "\n").trim() : trimmed
}

const readPem = (text: string): { readonly label: string; readonly der: Uint8Array } | undefined => {
  const match = PEM.exec(text)
  if (match === null) return undefined
  const [, label, body, endLabel] = match
  if (label !== endLabel) throw malformed(`PEM BEGIN ${label} does not match END ${endLabel}`)
  // The text is trimmed, so anything left after END is not whitespace: a second block, a pasted
  // command, half of another file. Refused rather than ignored, so what is stored is what was meant.
  if (match[0].length !== text.length) {
    throw malformed(`there is text after the PEM END line (-----END ${label}-----); send one key block only`)
  }
  if (/Proc-Type:\s*4,ENCRYPTED/.test(body!)) {
    throw unsupported("the PEM private key is encrypted; decrypt it first (openssl pkey -in key.pem -out plain.pem)")
  }
  return { label: label!, der: decodeBody(body!, `the body of the PEM ${label}`) }
}

const checkStrength = (key: RsaKeyDer): RsaKeyDer => {
  if (key.modulusLength < MIN_MODULUS_LENGTH) {
    throw new KeyImportError(
      "WeakKey",
      `RSA key of ${key.modulusLength} bits refused: keys must be ${MIN_MODULUS_LENGTH} bits or more`
    )
  }
  return key
}

const topSequence = (der: Uint8Array, what: string): Der.Tlv => {
  const top = Der.readTlv(der, 0)
  if (top === undefined || top.tag !== Der.SEQUENCE || top.end !== der.length)
    throw malformed(`${what} is not valid DER`)
  return top
}

/**
 * Modulus length of a PKCS#1 RSAPrivateKey or RSAPublicKey found at `tlv`, after checking the
 * public exponent: it must be odd and at least 3. An exponent of 1 makes every "signature" of a
 * message verify as itself, so such a key would let anyone forge callbacks or requests.
 */
const pkcs1Modulus = (der: Uint8Array, tlv: Der.Tlv, kind: "private" | "public", what: string): number => {
  const parts = tlv.tag === Der.SEQUENCE ? Der.children(der, tlv) : undefined
  // RSAPrivateKey has 9 INTEGERs (more with multi-prime otherPrimeInfos); RSAPublicKey exactly 2.
  const fits = parts !== undefined && (kind === "private" ? parts.length >= 9 : parts.length === 2)
  if (!fits || parts.some((part) => part.tag !== Der.INTEGER)) {
    throw malformed(`${what} is not a PKCS#1 RSA ${kind} key`)
  }
  const modulus = parts[kind === "private" ? 1 : 0]!
  const exponent = parts[kind === "private" ? 2 : 1]!
  const exponentBits = Der.integerBitLength(der, exponent)
  const odd = (der[exponent.end - 1]! & 1) === 1
  if (!odd || exponentBits < 2 || exponentBits > 256) {
    throw new KeyImportError(
      "WeakKey",
      "RSA key refused: its public exponent must be odd, at least 3 and at most 256 bits"
    )
  }
  return Der.integerBitLength(der, modulus)
}

const privateFromDer = (der: Uint8Array, format: "pkcs8" | "pkcs1-private"): RsaKeyDer => {
  const top = topSequence(der, "the private key")
  if (format === "pkcs1-private") {
    return checkStrength({ format, der, modulusLength: pkcs1Modulus(der, top, "private", "the private key") })
  }
  const parts = Der.children(der, top)
  const [version, algorithm, key] = parts ?? []
  if (version?.tag !== Der.INTEGER || algorithm?.tag !== Der.SEQUENCE || key?.tag !== Der.OCTET_STRING) {
    throw malformed("the private key is not PKCS#8")
  }
  if (!Der.isRsaAlgorithm(der, algorithm))
    throw unsupported("the private key is not an RSA key (SHA256withRSA needs RSA)")
  const inner = Der.readTlv(der, key.start, key.end)
  if (inner === undefined || inner.end !== key.end) throw malformed("the PKCS#8 private key holds no valid RSA key")
  return checkStrength({ format, der, modulusLength: pkcs1Modulus(der, inner, "private", "the PKCS#8 private key") })
}

const publicFromDer = (der: Uint8Array, format: "spki" | "pkcs1-public"): RsaKeyDer => {
  const top = topSequence(der, "the public key")
  if (format === "pkcs1-public") {
    return checkStrength({ format, der, modulusLength: pkcs1Modulus(der, top, "public", "the public key") })
  }
  const parts = Der.children(der, top) ?? []
  const [algorithm, bits] = parts
  if (parts.length !== 2 || algorithm?.tag !== Der.SEQUENCE || bits?.tag !== Der.BIT_STRING || der[bits.start] !== 0) {
    throw malformed("the public key is not SubjectPublicKeyInfo")
  }
  if (!Der.isRsaAlgorithm(der, algorithm))
    throw unsupported("the public key is not an RSA key (SHA256withRSA needs RSA)")
  const inner = Der.readTlv(der, bits.start + 1, bits.end)
  if (inner === undefined || inner.end !== bits.end) throw malformed("the SPKI public key holds no valid RSA key")
  return checkStrength({ format, der, modulusLength: pkcs1Modulus(der, inner, "public", "the SPKI public key") })
}

/**
 * Decodes an RSA private key from PEM: PKCS#8 (`-----BEGIN PRIVATE KEY-----`) or PKCS#1
 * (`-----BEGIN RSA PRIVATE KEY-----`), wrapped or on one line, or from the bare Base64 body of
 * either. Line breaks written as `\n` (as in many `.env` files) are understood.
 *
 * Throws {@link KeyImportError}: `MalformedKey` for text that is not such a PEM, `UnsupportedKey`
 * for encrypted keys, public keys, certificates and non-RSA keys, `WeakKey` under 2048 bits or
 * with a public exponent that is even, below 3 or over 256 bits.
 *
 * @example
 * ```ts
 * import { Pem } from "@pc/core"
 *
 * const key = Pem.decodePrivateKey(pem) // { format: "pkcs8", der, modulusLength: 2048 }
 * ```
 */
export const decodePrivateKey = (pem: string): RsaKeyDer => {
  const text = normalise(pem, "the private key")
  if (!text.startsWith("-----")) {
    // A bare Base64 body, as for public keys: PKCS#8 opens with version INTEGER then a SEQUENCE,
    // PKCS#1 with nine INTEGERs, a public key with a SEQUENCE (SPKI) or two INTEGERs.
    const der = decodeBody(text, "the private key")
    const parts = Der.children(der, topSequence(der, "the private key")) ?? []
    if (parts[1]?.tag === Der.SEQUENCE) return privateFromDer(der, "pkcs8")
    if (parts.length >= 9) return privateFromDer(der, "pkcs1-private")
    throw unsupported("this is a public key; signing needs the private key")
  }
  const block = readPem(text)
  if (block === undefined) throw malformed("the private key is not PEM text (-----BEGIN PRIVATE KEY----- ...)")
  switch (block.label) {
    case "PRIVATE KEY":
      return privateFromDer(block.der, "pkcs8")
    case "RSA PRIVATE KEY":
      return privateFromDer(block.der, "pkcs1-private")
    case "ENCRYPTED PRIVATE KEY":
      throw unsupported("the PEM private key is encrypted; decrypt it first (openssl pkey -in key.pem -out plain.pem)")
    case "PUBLIC KEY":
    case "RSA PUBLIC KEY":
      throw unsupported("this is a public key; signing needs the private key")
    default:
      throw unsupported(`PEM ${block.label} is not an RSA private key`)
  }
}

/**
 * Decodes an RSA public key from PEM, SPKI (`-----BEGIN PUBLIC KEY-----`) or PKCS#1
 * (`-----BEGIN RSA PUBLIC KEY-----`), or from the bare Base64 body of either (as some portals show it).
 *
 * Throws {@link KeyImportError} like {@link decodePrivateKey}; a private key given here is
 * `UnsupportedKey`, so a private key is never mistaken for a public one.
 *
 * @example
 * ```ts
 * import { Pem } from "@pc/core"
 *
 * Pem.decodePublicKey("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA…").format // "spki"
 * ```
 */
export const decodePublicKey = (pemOrBase64: string): RsaKeyDer => {
  const text = normalise(pemOrBase64, "the public key")
  if (!text.startsWith("-----")) {
    const der = decodeBody(text, "the public key")
    // SPKI opens with the AlgorithmIdentifier SEQUENCE; PKCS#1 RSAPublicKey is two INTEGERs. Private
    // keys open with a version INTEGER followed by more INTEGERs (PKCS#1) or a SEQUENCE (PKCS#8).
    const top = topSequence(der, "the public key")
    const parts = Der.children(der, top) ?? []
    if (parts[0]?.tag === Der.SEQUENCE) return publicFromDer(der, "spki")
    if (parts.length > 2 || parts[1]?.tag === Der.SEQUENCE) {
      throw unsupported(
        "this is a private key; verifying needs the public key, and the private key must never be shared"
      )
    }
    return publicFromDer(der, "pkcs1-public")
  }
  const block = readPem(text)
  if (block === undefined) throw malformed("the public key is not PEM text (-----BEGIN PUBLIC KEY----- ...)")
  switch (block.label) {
    case "PUBLIC KEY":
      return publicFromDer(block.der, "spki")
    case "RSA PUBLIC KEY":
      return publicFromDer(block.der, "pkcs1-public")
    case "PRIVATE KEY":
    case "RSA PRIVATE KEY":
    case "ENCRYPTED PRIVATE KEY":
      throw unsupported(
        "this is a private key; verifying needs the public key, and the private key must never be shared"
      )
    case "CERTIFICATE":
      throw unsupported("this is a certificate; pass its public key (openssl x509 -pubkey -noout -in cert.pem)")
    default:
      throw unsupported(`PEM ${block.label} is not an RSA public key`)
  }
}
