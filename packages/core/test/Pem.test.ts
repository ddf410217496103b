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

  it("refuses bare Base64 (private keys come only as PEM) as MalformedKey", () => {
    errorOf(() => decodePrivateKey(pemBody(merchant.privatePkcs8Pem)), "MalformedKey")
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
