// The callbacks' floor: the most any deliverer of signed callbacks can send one merchant with the
// mock's limit of attempts in flight per merchant. Each callback is signed on libuv's thread pool
// (as the mock signs) and POSTed over keep-alive connections; nothing is claimed, stored or
// recorded, which the mock must do (CONTRACT.md: kept before the first attempt, each attempt
// recorded before it is sent). Its own process, like the mock, so it shares no event loop with the
// receiver in the bench's process.
// It signs with the test merchant's key, not a platform key: both are RSA-2048, so each signature
// costs the same, and the receiver only counts what arrives.
// Usage: node BareDeliverer.mjs <receiverUrl> <privateKeyFile> <appKey> <inFlight> <seconds>
// Prints the callbacks the receiver took (2xx) per second, after one second not counted.
import { Canonical, Headers } from "@pc/core"
import { createPrivateKey, sign } from "node:crypto"
import { readFileSync } from "node:fs"
import { Agent, request } from "node:http"

const [url, keyFile, appKey, inFlightText, secondsText] = process.argv.slice(2)
const key = createPrivateKey(readFileSync(keyFile, "utf8"))
const inFlight = Number(inFlightText)
const agent = new Agent({ keepAlive: true, maxSockets: inFlight })
let sent = 0

const signOnThreadPool = (text) =>
  new Promise((resolve, reject) =>
    sign("sha256", Buffer.from(text), key, (error, signature) =>
      error === null ? resolve(signature.toString("base64")) : reject(error)
    )
  )

const post = (body, headers) =>
  new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", ...headers } },
      (response) => {
        response.resume()
        response.on("end", () => resolve(response.statusCode ?? 0))
      }
    )
    outgoing.on("error", reject)
    outgoing.end(body)
  })

const deliverOne = async () => {
  const n = sent++
  const timestamp = String(Date.now())
  const now = new Date().toISOString()
  const body = JSON.stringify({
    eventId: `bare-${n}`,
    eventType: "order.paid",
    orderSn: `bare-${n}`,
    outerOrder: `bare-order-${n}`,
    amount: "10.00",
    currency: "USD",
    status: "PAID",
    createdAt: now,
    updatedAt: now
  })
  const signature = await signOnThreadPool(Canonical.callbackStringToSign({ appKey, timestamp, body }))
  const status = await post(body, {
    [Headers.CallbackHeaders.timestamp]: timestamp,
    [Headers.CallbackHeaders.signature]: signature,
    [Headers.CallbackHeaders.keyVersion]: "1"
  })
  if (status < 200 || status > 299) throw new Error(`the receiver answered ${status}`)
}

/** Callbacks delivered in `ms`, `inFlight` at a time. */
const deliverFor = async (ms) => {
  const end = performance.now() + ms
  let delivered = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await deliverOne()
        delivered++
      }
    })
  )
  return delivered
}

await deliverFor(1_000)
const start = performance.now()
const delivered = await deliverFor(Number(secondsText) * 1_000)
process.stdout.write(`${delivered / ((performance.now() - start) / 1_000)}\n`)
agent.destroy()
