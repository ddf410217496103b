// Signs a create-order request as the mock's test merchant and prints the curl command that sends
// it to a local mock (`pnpm mock --env production`): the signature scheme of spec 5.3 in a few lines.
import { readFileSync } from "node:fs"
import { Canonical, Headers } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"

const appKey = "7e57c0de-0000-4000-8000-000000000001" // the mock's test merchant (TEST ONLY)
const pem = readFileSync(
  new URL("../apps/mock-server/test-merchant/TEST-ONLY-private-key.pem", import.meta.url),
  "utf8"
)
const signer = await NodeCrypto.importPrivateKey(pem)

const body = JSON.stringify({ orderId: `M-${Date.now()}`, amount: "10.00", currency: "USD" })
const timestamp = Date.now()
const path = "/openapi/v2/order/create"
const signature = await signer.sign(Canonical.requestStringToSign({ method: "POST", path, appKey, timestamp, body }))

const { appKey: AK, timestamp: TS, keyVersion: KV, signature: SIG } = Headers.RequestHeaders
console.log(`curl -s http://127.0.0.1:4010${path} -H 'Content-Type: application/json' \\
  -H '${AK}: ${appKey}' -H '${TS}: ${timestamp}' -H '${KV}: 1' \\
  -H '${SIG}: ${signature}' \\
  --data-binary '${body}'`)
