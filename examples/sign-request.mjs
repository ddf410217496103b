// Signs a create-order request with the openssl test vector key and prints the headers and the
// curl command that would send it: the whole signature scheme of spec 5.3 in a few lines.
import { readFileSync } from "node:fs"
import { Canonical, Headers } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"

const vectors = JSON.parse(
  readFileSync(new URL("../tooling/crypto-conformance/fixtures/signatures.json", import.meta.url), "utf8")
)
const appKey = "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4" // test-only appKey from the vectors
const signer = await NodeCrypto.importPrivateKey(vectors.keys["merchant-v1"].privatePkcs8Pem) // test-only key

const body = JSON.stringify({ orderId: "M-1001", amount: "10.00", currency: "USD" })
const timestamp = Date.now()
const path = "/openapi/v2/order/create"
const signature = await signer.sign(Canonical.requestStringToSign({ method: "POST", path, appKey, timestamp, body }))

console.log(`${Headers.RequestHeaders.appKey}: ${appKey}`)
console.log(`${Headers.RequestHeaders.timestamp}: ${timestamp}`)
console.log(`${Headers.RequestHeaders.keyVersion}: 1`)
console.log(`${Headers.RequestHeaders.signature}: ${signature}`)
console.log(`body: ${body}`)
