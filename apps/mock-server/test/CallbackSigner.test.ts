// The platform key's signer for callbacks (thread pool): the same signature bytes as
// @pc/crypto-node's signer, verifiable with the public key, and many at once all correct.
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { expect, it } from "vitest"
import { platformSigner } from "../src/callbacks/CallbackSigner.js"

it("signs exactly as @pc/crypto-node does, many signatures in flight at once", async () => {
  const pair = await KeyPair.generate(2048)
  const signer = await platformSigner(pair.privateKeyPem)
  const reference = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
  const verifier = await NodeCrypto.importPublicKey(pair.publicKeyPem)
  expect(signer.modulusLength).toBe(2048)
  const messages = Array.from({ length: 32 }, (_, i) => `7e57.${1_700_000_000_000 + i}.{"orderSn":"PC${i}","note":"ü"}`)
  const signatures = await Promise.all(messages.map((message) => signer.sign(message)))
  for (const [i, message] of messages.entries()) {
    expect(signatures[i]).toBe(await reference.sign(message))
    expect(await verifier.verify(message, signatures[i]!)).toBe(true)
  }
  expect(await verifier.verify(`${messages[0]}x`, signatures[0]!)).toBe(false)
})

it("refuses text that is not a private key", async () => {
  await expect(platformSigner("not a key")).rejects.toThrow()
})
