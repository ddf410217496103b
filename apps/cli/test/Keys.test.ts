// pc keys generate / inspect as processes: a PKCS#8 private key with mode 0600 and an SPKI public
// key, the fingerprint openssl computes, no private key in any output, and exit code 2 on misuse.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { freshConfigDir, pc, pcJson } from "./support/Pc.js"

const env = { PC_CONFIG_DIR: freshConfigDir() }

const opensslFingerprint = (file: string, isPrivate: boolean) => {
  const der = execFileSync("openssl", [
    "pkey",
    ...(isPrivate ? [] : ["-pubin"]),
    "-in",
    file,
    "-pubout",
    "-outform",
    "DER"
  ])
  return execFileSync("openssl", ["dgst", "-sha256", "-r"], { input: der }).toString().split(" ")[0]
}

describe("pc keys", () => {
  it("generates a 3072-bit pair, private 0600 PKCS#8 and public SPKI, with openssl's fingerprint", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "pc-keys-")), "nested")
    const generated = await pcJson<{
      privateKeyFile: string
      publicKeyFile: string
      bits: number
      fingerprint: string
    }>(["keys", "generate", "--bits", "3072", "--out", out], { env })
    expect(generated.code).toBe(0)
    expect(generated.json.bits).toBe(3072)
    const privatePem = readFileSync(generated.json.privateKeyFile, "utf8")
    expect(privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
    expect(readFileSync(generated.json.publicKeyFile, "utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----\n/)
    expect(statSync(generated.json.privateKeyFile).mode & 0o777).toBe(0o600)
    expect(generated.json.fingerprint).toBe(opensslFingerprint(generated.json.publicKeyFile, false))
    expect(generated.stdout + generated.stderr).not.toContain(privatePem.split("\n")[1])

    // Inspecting the private key shows its public fingerprint, never the key.
    const inspected = await pcJson(["keys", "inspect", generated.json.privateKeyFile], { env })
    expect(inspected.code).toBe(0)
    expect(inspected.json).toMatchObject({
      type: "private",
      format: "pkcs8",
      bits: 3072,
      fingerprint: generated.json.fingerprint
    })
    expect(opensslFingerprint(generated.json.privateKeyFile, true)).toBe(generated.json.fingerprint)
    expect(inspected.stdout).not.toContain(privatePem.split("\n")[1])

    const human = await pc(["keys", "inspect", generated.json.publicKeyFile], { env })
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/type: +RSA public key \(spki\)\nbits: +3072\nfingerprint: +[0-9a-f]{64}/)

    // A second generate into the same directory never overwrites the keys: usage error, exit 2.
    const again = await pcJson(["keys", "generate", "--out", out], { env })
    expect(again.code).toBe(2)
    expect(again.json).toMatchObject({ error: { kind: "Usage" } })
    expect(readFileSync(generated.json.privateKeyFile, "utf8")).toBe(privatePem)
  }, 120_000)

  it("refuses what is not a key, and a bad --bits, with exit code 2", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "pc-keys-")), "not-a-key.pem")
    writeFileSync(file, "hello")
    const notKey = await pcJson(["keys", "inspect", file], { env })
    expect(notKey.code).toBe(2)
    expect((notKey.json as { error: { message: string } }).error.message).toMatch(/not an RSA key/)
    const bits = await pc(["keys", "generate", "--bits", "1024"], { env })
    expect(bits.code).toBe(2)
    expect(bits.stdout).toBe("")
  }, 120_000)
})
