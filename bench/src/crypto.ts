// Adapters against the raw runtime crypto they wrap: the same key, the same message, the same run.
import { Canonical } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { WebCrypto } from "@pc/crypto-web"
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto"
import { compare, rate } from "./measure.js"

export const cryptoBench = async (privatePem: string, publicPem: string) => {
  const message = Canonical.requestStringToSign({
    method: "POST",
    path: "/openapi/v2/order/create",
    appKey: "7e57c0de-0000-4000-8000-000000000001",
    timestamp: 1763712000000,
    body: '{"orderId":"M-1001","amount":"10.00","currency":"USD"}'
  })
  const rawPrivate = createPrivateKey(privatePem)
  const rawPublic = createPublicKey(publicPem)
  const signer = await NodeCrypto.importPrivateKey(privatePem)
  const verifier = await NodeCrypto.importPublicKey(publicPem)
  const signature = await signer.sign(message)

  const subtle = globalThis.crypto.subtle
  const algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }
  const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64")
  const rawWebPrivate = await subtle.importKey("pkcs8", der(privatePem), algorithm, false, ["sign"])
  const rawWebPublic = await subtle.importKey("spki", der(publicPem), algorithm, false, ["verify"])
  const webSigner = await WebCrypto.importPrivateKey(privatePem)
  const webVerifier = await WebCrypto.importPublicKey(publicPem)
  const encoder = new TextEncoder()
  const signatureBytes = Buffer.from(signature, "base64")

  return {
    "node sign": await compare(
      () => rate(() => sign("sha256", Buffer.from(message), rawPrivate).toString("base64"), 300),
      () => rate(() => signer.sign(message), 300)
    ),
    "node verify": await compare(
      () => rate(() => verify("sha256", Buffer.from(message), rawPublic, Buffer.from(signature, "base64")), 3000),
      () => rate(() => verifier.verify(message, signature), 3000)
    ),
    "web sign": await compare(
      () =>
        rate(
          async () =>
            Buffer.from(await subtle.sign(algorithm, rawWebPrivate, encoder.encode(message))).toString("base64"),
          300
        ),
      () => rate(() => webSigner.sign(message), 300)
    ),
    "web verify": await compare(
      () => rate(() => subtle.verify(algorithm, rawWebPublic, signatureBytes, encoder.encode(message)), 2000),
      () => rate(() => webVerifier.verify(message, signature), 2000)
    )
  }
}
