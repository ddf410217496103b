import { Canonical, Crypto } from "@pc/core"
import { describe, expect, it } from "vitest"
import { KeyPair, NodeCrypto } from "../src/index.js"

describe("KeyPair.generate", () => {
  it.each([2048, 3072] as const)("makes a %i-bit PKCS#8/SPKI pair that signs and verifies", async (bits) => {
    const pair = await KeyPair.generate(bits)
    expect(pair.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
    expect(pair.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/)
    const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
    const verifier = await NodeCrypto.importPublicKey(pair.publicKeyPem)
    expect(signer.modulusLength).toBe(bits)
    expect(verifier.modulusLength).toBe(bits)
    const text = Canonical.callbackStringToSign({ appKey: "a", timestamp: 1, body: "{}" })
    expect(await verifier.verify(text, await signer.sign(text))).toBe(true)
  })

  it("defaults to 2048 bits and refuses other sizes", async () => {
    expect((await KeyPair.generate()).modulusLength).toBe(2048)
    await expect(KeyPair.generate(1024 as 2048)).rejects.toThrow(RangeError)
  })

  it("two pairs differ", async () => {
    const [a, b] = await Promise.all([KeyPair.generate(), KeyPair.generate()])
    expect(a.privateKeyPem).not.toBe(b.privateKeyPem)
    const verifierA = await NodeCrypto.importPublicKey(a.publicKeyPem)
    const signature = await (await NodeCrypto.importPrivateKey(b.privateKeyPem)).sign("x")
    expect(await verifierA.verify("x", signature)).toBe(false)
  })

  it("an EC key is refused as unsupported, not misread", async () => {
    const { generateKeyPairSync } = await import("node:crypto")
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" })
    const pem = ec.privateKey.export({ type: "pkcs8", format: "pem" }).toString()
    await expect(NodeCrypto.importPrivateKey(pem)).rejects.toBeInstanceOf(Crypto.KeyImportError)
    await expect(NodeCrypto.importPrivateKey(pem)).rejects.toMatchObject({ reason: "UnsupportedKey" })
  })
})
