// The dashboard's openssl command, run by the real bash and openssl: it prints "Verified OK" for
// the signature the mock's own callback signing made, whatever the body holds (quotes, shell
// syntax, percent signs, Unicode), and "Verification failure" once one byte of the body changes.
import { Canonical } from "@pc/core"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { run } from "@pc/test-support"
import { describe, expect, it } from "vitest"
import { opensslVerifyCommand } from "../src/dashboard/VerifyCommand.js"

// A body that would create this file if the command ran any of it as shell code.
const marker = join(mkdtempSync(join(tmpdir(), "pc-verify-")), "ran")
const APP_KEY = "6f1c9a52-3b7e-4c1d-9a8e-2f4b5c6d7e80"
const pair = await KeyPair.generate(2048)
const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)

/**
 * Runs `command` as if pasted into bash: from standard input, in a scratch working folder. Not
 * spawnSync: a blocked worker on a loaded machine missed vitest's own calls and failed the run.
 */
const paste = async (command: string) => {
  const finished = await run("bash", [], { input: command, cwd: "/tmp" })
  return { status: finished.code, out: `${finished.stdout}${finished.stderr}` }
}

const commandFor = async (body: string, sent = body) => {
  const timestamp = "1767225605000"
  const signature = await signer.sign(Canonical.callbackStringToSign({ appKey: APP_KEY, timestamp, body }))
  return opensslVerifyCommand({ appKey: APP_KEY, timestamp, signature, body: sent, publicKeyPem: pair.publicKeyPem })
}

const bodies: ReadonlyArray<readonly [string, string]> = [
  ["a plain callback body", JSON.stringify({ eventId: "evt_1", eventType: "order.paid", outerOrder: "M-1001" })],
  ["single and double quotes", JSON.stringify({ outerOrder: `it's "quoted" ''` })],
  ["shell syntax", JSON.stringify({ outerOrder: `$(touch ${marker}) \`touch ${marker}\` $HOME ; & | > y` })],
  ["printf directives and backslashes", JSON.stringify({ outerOrder: "100% %s %n \\n \\\\ \\x41" })],
  ["Unicode and an emoji", JSON.stringify({ outerOrder: "注文-ü-\u200b-😀" })],
  ["an image tag", JSON.stringify({ outerOrder: "<img src=x onerror=alert(1)>" })]
]

describe("opensslVerifyCommand", () => {
  it.each(bodies)("verifies a body with %s, as pasted into bash", async (_, body) => {
    const verified = await paste(await commandFor(body))
    expect(verified.out).toContain("Verified OK")
    expect(verified.status).toBe(0)
    expect(existsSync(marker)).toBe(false)
  })

  it.each(bodies)("fails for a tampered body with %s", async (_, body) => {
    const tampered = await paste(await commandFor(body, body.replace("{", "{ ")))
    expect(tampered.out).toContain("Verification failure")
    expect(tampered.status).not.toBe(0)
  })

  it("leaves the caller's working folder as it was", async () => {
    const command = await commandFor("{}")
    const finished = await run("bash", ["-c", `${command} >/dev/null && pwd`], { cwd: "/tmp" })
    expect(finished.stdout.trim()).toBe("/tmp")
  })
})
