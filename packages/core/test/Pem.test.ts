import { describe, expect, it } from "vitest"
import raw from "../../../tooling/crypto-conformance/fixtures/signatures.json" with { type: "json" }
import { decode as base64Decode, encode as base64Encode } from "../src/Base64.js"
import { KeyImportError, type KeyImportErrorReason } from "../src/Crypto.js"
import { decodePrivateKey, decodePublicKey } from "../src/Pem.js"

// @pc/crypto-conformance is not a dependency of @pc/core, so its fixture is read directly.
type FixtureKey = {
  readonly bits: number
  readonly privatePkcs8Pem: string
  readonly privatePkcs1Pem: string
  readonly publicSpkiPem: string
  readonly publicPkcs1Pem: string
}
const keys = raw.keys as Record<string, FixtureKey>
const keyOf = (name: string): FixtureKey => {
  const key = keys[name]
  if (key === undefined) throw new Error(`no fixture key ${name}`)
  return key
}

const merchant = keyOf("merchant-v1")

const derLength = (n: number): Array<number> => (n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff])
const derTlv = (tag: number, content: Uint8Array): Uint8Array =>
  Uint8Array.from([tag, ...derLength(content.length), ...content])
const derInteger = (value: Uint8Array): Uint8Array =>
  derTlv(0x02, value[0]! & 0x80 ? Uint8Array.from([0, ...value]) : value)
const derSequence = (...parts: ReadonlyArray<Uint8Array>): Uint8Array =>
  derTlv(0x30, Uint8Array.from(parts.flatMap((part) => [...part])))
/** The modulus bytes (without the sign byte) of a PKCS#1 RSA PUBLIC KEY PEM. */
const modulusOf = (pkcs1Pem: string): Uint8Array => {
  const decoded = base64Decode(pkcs1Pem.replace(/-----[A-Z ]+-----|\s/g, ""))
  if (!decoded.ok) throw new Error("fixture")
  const der = decoded.bytes
  // 30 82 LL LL 02 82 01 01 00 <256 bytes>
  const length = (der[6]! << 8) | der[7]!
  return der.subarray(9, 8 + length)
}

/** The Base64 body of a PEM, on one line. */
const pemBody = (pem: string): string =>
  pem
    .split(/\r?\n/)
    .filter((line) => line !== "" && !line.startsWith("-----"))
    .join("")

const pemLabel = (pem: string): string => /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem)![1]!

const derOf = (pem: string): Uint8Array => {
  const decoded = base64Decode(pemBody(pem))
  if (!decoded.ok) throw new Error(decoded.error.message)
  return decoded.bytes
}

const wrap = (label: string, der: Uint8Array): string => {
  const b64 = base64Encode(der)
  const lines = b64.match(/.{1,64}/g) ?? []
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`
}

const relabel = (pem: string, from: string, to: string): string =>
  pem
    .replace(`-----BEGIN ${from}-----`, `-----BEGIN ${to}-----`)
    .replace(`-----END ${from}-----`, `-----END ${to}-----`)

const errorOf = (f: () => unknown, reason: KeyImportErrorReason): KeyImportError => {
  let caught: unknown
  try {
    f()
  } catch (e) {
    caught = e
  }
  expect(caught).toBeInstanceOf(KeyImportError)
  const error = caught as KeyImportError
  expect(error.reason).toBe(reason)
  return error
}

describe("the fixture", () => {
  it("holds PEM keys with the expected labels", () => {
    expect(pemLabel(merchant.publicSpkiPem)).toBe("PUBLIC KEY")
    expect(pemLabel(merchant.publicPkcs1Pem)).toBe("RSA PUBLIC KEY")
    expect(pemLabel(merchant.privatePkcs8Pem)).toBe("PRIVATE KEY")
    expect(pemLabel(merchant.privatePkcs1Pem)).toBe("RSA PRIVATE KEY")
  })
})

describe("decodePublicKey", () => {
  it.each([
    "merchant-v1",
    "merchant-v2",
    "merchant-3072",
    "merchant-4096",
    "platform-sandbox-v1",
    "platform-production-v1"
  ])("decodes %s from SPKI and PKCS#1 PEM with its modulus length", (name) => {
    const key = keyOf(name)
    const spki = decodePublicKey(key.publicSpkiPem)
    expect(spki.format).toBe("spki")
    expect(spki.modulusLength).toBe(key.bits)
    expect(Array.from(spki.der)).toEqual(Array.from(derOf(key.publicSpkiPem)))
    const pkcs1 = decodePublicKey(key.publicPkcs1Pem)
    expect(pkcs1.format).toBe("pkcs1-public")
    expect(pkcs1.modulusLength).toBe(key.bits)
  })

  it("tells bare Base64 SPKI from bare Base64 PKCS#1", () => {
    const spki = decodePublicKey(pemBody(merchant.publicSpkiPem))
    expect(spki.format).toBe("spki")
    expect(spki.modulusLength).toBe(2048)
    expect(Array.from(spki.der)).toEqual(Array.from(derOf(merchant.publicSpkiPem)))
    const pkcs1 = decodePublicKey(pemBody(merchant.publicPkcs1Pem))
    expect(pkcs1.format).toBe("pkcs1-public")
    expect(pkcs1.modulusLength).toBe(2048)
    expect(Array.from(pkcs1.der)).toEqual(Array.from(derOf(merchant.publicPkcs1Pem)))
  })

  it("accepts bare Base64 wrapped over several lines, and with surrounding whitespace", () => {
    const wrapped = (pemBody(merchant.publicSpkiPem).match(/.{1,64}/g) ?? []).join("\n")
    expect(decodePublicKey(`  \n${wrapped}\n  `).format).toBe("spki")
  })

  it("accepts CRLF line endings and surrounding whitespace in PEM", () => {
    expect(decodePublicKey(merchant.publicSpkiPem.replace(/\n/g, "\r\n")).format).toBe("spki")
    expect(decodePublicKey(`\n\n  ${merchant.publicSpkiPem}  \n\n`).format).toBe("spki")
  })

  it("refuses a PEM whose BEGIN and END labels differ as MalformedKey, naming both", () => {
    const pem = merchant.publicSpkiPem.replace("-----END PUBLIC KEY-----", "-----END RSA PUBLIC KEY-----")
    const error = errorOf(() => decodePublicKey(pem), "MalformedKey")
    expect(error.message).toContain("PUBLIC KEY")
    expect(error.message).toContain("RSA PUBLIC KEY")
    expect(error.code).toBe("ERR_PC_KEY_MALFORMED")
  })

  it("refuses an ENCRYPTED PRIVATE KEY as UnsupportedKey, saying it is a private key", () => {
    const pem = relabel(merchant.privatePkcs8Pem, "PRIVATE KEY", "ENCRYPTED PRIVATE KEY")
    const error = errorOf(() => decodePublicKey(pem), "UnsupportedKey")
    expect(error.message).toContain("private key")
    expect(error.code).toBe("ERR_PC_KEY_UNSUPPORTED")
  })

  it("refuses a CERTIFICATE as UnsupportedKey, telling how to extract its public key", () => {
    const pem = wrap("CERTIFICATE", derOf(merchant.publicSpkiPem))
    const error = errorOf(() => decodePublicKey(pem), "UnsupportedKey")
    expect(error.message).toContain("certificate")
    expect(error.message).toContain("-pubkey")
  })

  it.each(["PRIVATE KEY", "RSA PRIVATE KEY"])("refuses a %s PEM as UnsupportedKey", (label) => {
    const pem = label === "PRIVATE KEY" ? merchant.privatePkcs8Pem : merchant.privatePkcs1Pem
    const error = errorOf(() => decodePublicKey(pem), "UnsupportedKey")
    expect(error.message).toContain("private key")
    // Key material never appears in the message.
    expect(error.message).not.toContain(pemBody(pem).slice(0, 20))
  })

  it("refuses an unknown label (EC PUBLIC KEY) as UnsupportedKey naming the label", () => {
    const error = errorOf(
      () => decodePublicKey(relabel(merchant.publicSpkiPem, "PUBLIC KEY", "EC PUBLIC KEY")),
      "UnsupportedKey"
    )
    expect(error.message).toContain("EC PUBLIC KEY")
  })

  it("refuses a DER with trailing garbage as MalformedKey, in PEM and bare Base64", () => {
    const der = derOf(merchant.publicSpkiPem)
    const padded = new Uint8Array(der.length + 2)
    padded.set(der)
    padded[der.length] = 0x05
    padded[der.length + 1] = 0x00
    errorOf(() => decodePublicKey(wrap("PUBLIC KEY", padded)), "MalformedKey")
    errorOf(() => decodePublicKey(base64Encode(padded)), "MalformedKey")
    const pkcs1 = derOf(merchant.publicPkcs1Pem)
    const pkcs1Padded = new Uint8Array(pkcs1.length + 1)
    pkcs1Padded.set(pkcs1)
    errorOf(() => decodePublicKey(wrap("RSA PUBLIC KEY", pkcs1Padded)), "MalformedKey")
  })

  it("refuses text after the PEM END line as MalformedKey, for public and private keys", () => {
    const publicError = errorOf(() => decodePublicKey(`${merchant.publicSpkiPem}garbage`), "MalformedKey")
    expect(publicError.message).toContain("after the PEM END line")
    errorOf(() => decodePublicKey(`${merchant.publicSpkiPem}\n-----BEGIN PUBLIC KEY-----\n`), "MalformedKey")
    errorOf(() => decodePrivateKey(`${merchant.privatePkcs8Pem}\n;rm -rf`), "MalformedKey")
    // Whitespace after the block (a final newline, CRLF) is not garbage.
    expect(decodePublicKey(`${merchant.publicSpkiPem}\r\n\n  `).format).toBe("spki")
  })

  it("refuses a truncated DER as MalformedKey", () => {
    const der = derOf(merchant.publicSpkiPem)
    errorOf(() => decodePublicKey(wrap("PUBLIC KEY", der.subarray(0, der.length - 1))), "MalformedKey")
  })

  it("refuses a PEM body that is not Base64 as MalformedKey", () => {
    errorOf(
      () => decodePublicKey("-----BEGIN PUBLIC KEY-----\nnot*base64!\n-----END PUBLIC KEY-----\n"),
      "MalformedKey"
    )
  })

  it("refuses text that is neither PEM nor Base64 DER as MalformedKey", () => {
    errorOf(() => decodePublicKey("hello world"), "MalformedKey")
    errorOf(() => decodePublicKey(""), "MalformedKey")
    errorOf(() => decodePublicKey("-----BEGIN PUBLIC KEY-----"), "MalformedKey")
  })

  it("refuses an SPKI labelled as PKCS#1 and a PKCS#1 labelled as SPKI as MalformedKey", () => {
    errorOf(() => decodePublicKey(relabel(merchant.publicSpkiPem, "PUBLIC KEY", "RSA PUBLIC KEY")), "MalformedKey")
    errorOf(() => decodePublicKey(relabel(merchant.publicPkcs1Pem, "RSA PUBLIC KEY", "PUBLIC KEY")), "MalformedKey")
  })

  it("refuses the 1024-bit key as WeakKey naming its size, in both forms", () => {
    const weak = keyOf("weak-1024")
    expect(errorOf(() => decodePublicKey(weak.publicSpkiPem), "WeakKey").message).toContain("1024")
    expect(errorOf(() => decodePublicKey(weak.publicPkcs1Pem), "WeakKey").code).toBe("ERR_PC_KEY_WEAK")
    errorOf(() => decodePublicKey(pemBody(weak.publicSpkiPem)), "WeakKey")
  })
})

describe("decodePrivateKey", () => {
  it.each(["merchant-v1", "merchant-3072", "merchant-4096"])("decodes %s from PKCS#8 and PKCS#1 PEM", (name) => {
    const key = keyOf(name)
    const pkcs8 = decodePrivateKey(key.privatePkcs8Pem)
    expect(pkcs8.format).toBe("pkcs8")
    expect(pkcs8.modulusLength).toBe(key.bits)
    expect(Array.from(pkcs8.der)).toEqual(Array.from(derOf(key.privatePkcs8Pem)))
    const pkcs1 = decodePrivateKey(key.privatePkcs1Pem)
    expect(pkcs1.format).toBe("pkcs1-private")
    expect(pkcs1.modulusLength).toBe(key.bits)
  })

  it("refuses an ENCRYPTED PRIVATE KEY as UnsupportedKey, telling how to decrypt it", () => {
    const pem = relabel(merchant.privatePkcs8Pem, "PRIVATE KEY", "ENCRYPTED PRIVATE KEY")
    const error = errorOf(() => decodePrivateKey(pem), "UnsupportedKey")
    expect(error.message).toContain("encrypted")
    expect(error.message).toContain("openssl")
  })

  it("refuses a legacy encrypted PKCS#1 PEM (Proc-Type: 4,ENCRYPTED) as UnsupportedKey", () => {
    const pem = merchant.privatePkcs1Pem.replace(
      "-----BEGIN RSA PRIVATE KEY-----\n",
      "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n\n"
    )
    expect(errorOf(() => decodePrivateKey(pem), "UnsupportedKey").message).toContain("encrypted")
  })

  it("refuses a CERTIFICATE as UnsupportedKey naming the label", () => {
    const error = errorOf(() => decodePrivateKey(wrap("CERTIFICATE", derOf(merchant.publicSpkiPem))), "UnsupportedKey")
    expect(error.message).toContain("CERTIFICATE")
  })

  it.each(["publicSpkiPem", "publicPkcs1Pem"] as const)(
    "refuses the %s as UnsupportedKey (signing needs a private key)",
    (field) => {
      const error = errorOf(() => decodePrivateKey(merchant[field]), "UnsupportedKey")
      expect(error.message).toContain("public key")
    }
  )

  it("accepts the bare Base64 body of either private form, as it does for public keys", () => {
    expect(decodePrivateKey(pemBody(merchant.privatePkcs8Pem))).toMatchObject({ format: "pkcs8", modulusLength: 2048 })
    expect(decodePrivateKey(pemBody(merchant.privatePkcs1Pem))).toMatchObject({
      format: "pkcs1-private",
      modulusLength: 2048
    })
    errorOf(() => decodePrivateKey(pemBody(merchant.publicSpkiPem)), "UnsupportedKey")
    errorOf(() => decodePrivateKey(pemBody(merchant.publicPkcs1Pem)), "UnsupportedKey")
  })

  it("understands the usual ways a PEM gets mangled in configuration", () => {
    const pem = merchant.privatePkcs8Pem
    // Line breaks written as the two characters \n (a .env file), one line with spaces, body on the BEGIN line.
    expect(decodePrivateKey(pem.replace(/\n/g, "\\n")).format).toBe("pkcs8")
    expect(decodePrivateKey(pem.replace(/\n/g, " ")).format).toBe("pkcs8")
    expect(decodePrivateKey(pem.replace("-----BEGIN PRIVATE KEY-----\n", "-----BEGIN PRIVATE KEY-----")).format).toBe(
      "pkcs8"
    )
    // A key followed by another block is refused: which one was meant is not ours to guess.
    errorOf(() => decodePublicKey(merchant.publicSpkiPem + merchant.publicPkcs1Pem), "MalformedKey")
  })

  it("names a value that is not a string (an unset environment variable) instead of throwing TypeError", () => {
    for (const value of [undefined, null, 42, {}]) {
      const error = errorOf(() => decodePrivateKey(value as unknown as string), "MalformedKey")
      expect(error.message).toMatch(/not a string/)
      errorOf(() => decodePublicKey(value as unknown as string), "MalformedKey")
    }
  })

  it("refuses a public exponent of 1, 2 or over 256 bits as a weak key (an exponent of 1 lets anyone forge)", () => {
    const n = modulusOf(merchant.publicPkcs1Pem)
    for (const e of [[0x01], [0x02], [0x01, 0x00, 0x00], new Array(33).fill(0xff)]) {
      const der = derSequence(derInteger(n), derInteger(Uint8Array.from(e)))
      const pem = `-----BEGIN RSA PUBLIC KEY-----\n${base64Encode(der)}\n-----END RSA PUBLIC KEY-----\n`
      errorOf(() => decodePublicKey(pem), "WeakKey")
    }
    const ok = derSequence(derInteger(n), derInteger(Uint8Array.from([0x01, 0x00, 0x01])))
    expect(decodePublicKey(base64Encode(ok)).modulusLength).toBe(2048)
  })

  it("refuses non-minimal DER lengths", () => {
    const der = base64Decode(pemBody(merchant.publicSpkiPem))
    if (!der.ok) throw new Error("fixture")
    // 30 82 01 22 ... -> 30 83 00 01 22 ...: the same length spelled with a leading zero byte.
    const bytes = der.bytes
    const padded = new Uint8Array(bytes.length + 1)
    padded.set([0x30, 0x83, 0x00, bytes[2]!, bytes[3]!], 0)
    padded.set(bytes.subarray(4), 5)
    errorOf(() => decodePublicKey(base64Encode(padded)), "MalformedKey")
  })

  it("refuses a BEGIN/END label mismatch as MalformedKey", () => {
    const pem = merchant.privatePkcs8Pem.replace("-----END PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----")
    errorOf(() => decodePrivateKey(pem), "MalformedKey")
  })

  it("refuses a DER with trailing garbage as MalformedKey", () => {
    for (const [label, pem] of [
      ["PRIVATE KEY", merchant.privatePkcs8Pem],
      ["RSA PRIVATE KEY", merchant.privatePkcs1Pem]
    ] as const) {
      const der = derOf(pem)
      const padded = new Uint8Array(der.length + 3)
      padded.set(der)
      errorOf(() => decodePrivateKey(wrap(label, padded)), "MalformedKey")
    }
  })

  it("refuses a PKCS#8 key labelled RSA PRIVATE KEY and the reverse as MalformedKey", () => {
    errorOf(() => decodePrivateKey(relabel(merchant.privatePkcs8Pem, "PRIVATE KEY", "RSA PRIVATE KEY")), "MalformedKey")
    errorOf(() => decodePrivateKey(relabel(merchant.privatePkcs1Pem, "RSA PRIVATE KEY", "PRIVATE KEY")), "MalformedKey")
  })

  it("refuses the 1024-bit key as WeakKey", () => {
    const weak = keyOf("weak-1024")
    expect(errorOf(() => decodePrivateKey(weak.privatePkcs8Pem), "WeakKey").message).toContain("1024")
    errorOf(() => decodePrivateKey(weak.privatePkcs1Pem), "WeakKey")
  })
})

describe("bare Base64 private key given to decodePublicKey", () => {
  const bare = (pem: string) =>
    pem
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("-----"))
      .join("")
  it.each(["privatePkcs1Pem", "privatePkcs8Pem"] as const)("%s is refused as UnsupportedKey", (field) => {
    let caught: unknown
    try {
      decodePublicKey(bare(raw.keys["merchant-v1"][field]))
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(KeyImportError)
    expect((caught as KeyImportError).reason).toBe("UnsupportedKey")
  })
})
