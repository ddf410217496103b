// Callback latency of the mock: from the moment an order's pay move is answered to the moment a
// real receiver on loopback has the signed callback, over a series of orders. Informational: there
// is no raw baseline for "the mock decided to call you", so it is reported, not held to a ratio.
import { Canonical } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { createServer } from "node:http"
import { launch } from "./http.js"

const APP_KEY = "7e57c0de-0000-4000-8000-000000000001"
const PATH = "/openapi/v2/order/create"

export const callbackLatency = async (privatePem: string, orders = 50) => {
  const arrivals = new Map<string, number>()
  const receiver = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString()
    })
    req.on("end", () => {
      arrivals.set((JSON.parse(body) as { orderSn: string }).orderSn, performance.now())
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const address = receiver.address()
  const receiverUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/cb`
  const mock = await launch(["apps/mock-server/src/main.ts", "--env", "production", "--port", "0", "--db", ":memory:"])
  try {
    const signer = await NodeCrypto.importPrivateKey(privatePem)
    await fetch(`${mock.url}/dev/merchants/${APP_KEY}/notify-url`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ notifyUrl: receiverUrl })
    })
    const latencies: Array<number> = []
    for (let i = 0; i < orders; i++) {
      const body = JSON.stringify({ orderId: `latency-${i}`, amount: "10.00", currency: "USD" })
      const timestamp = String(Date.now())
      const signature = await signer.sign(
        Canonical.requestStringToSign({ method: "POST", path: PATH, appKey: APP_KEY, timestamp, body })
      )
      const created = (await (
        await fetch(`${mock.url}${PATH}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-r-ak": APP_KEY,
            "x-r-ts": timestamp,
            "x-r-key-version": "1",
            "x-r-signature": signature
          },
          body
        })
      ).json()) as { data: { orderSn: string } }
      const orderSn = created.data.orderSn
      await (await fetch(`${mock.url}/dev/orders/${orderSn}/pay`, { method: "POST" })).text()
      const paidAt = performance.now()
      const deadline = paidAt + 10_000
      while (!arrivals.has(orderSn) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 1))
      const arrived = arrivals.get(orderSn)
      if (arrived === undefined) throw new Error(`no callback for ${orderSn} within 10 s`)
      latencies.push(Math.max(0, arrived - paidAt))
    }
    const sorted = [...latencies].sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
    return { orders, medianMs: at(0.5), p95Ms: at(0.95), maxMs: sorted[sorted.length - 1]! }
  } finally {
    mock.child.kill("SIGTERM")
    receiver.close()
  }
}
