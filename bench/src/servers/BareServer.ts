// The limit the mock is measured against: a bare node:http server that does the irreducible work of
// a signed create (read the body, verify SHA256withRSA over the string to sign, parse the JSON,
// answer the envelope) and nothing else: no storage, no timestamp window, no validation.
// Usage: node --import tsx BareServer.ts <public key PEM file> <port> [extra CPU ms per request] [loop|pool]
// The optional third argument spins that much CPU on each request before it answers, synchronously:
// the bench's "bare, padded" peer, a server as costly per request as the mock but with none of its
// code, which shows what latency tail that cost alone brings at 32 connections.
// The fourth says where it verifies. `loop` (the default): every signature on the event loop, the
// bare server the issues' targets were set against. `pool`: where the mock's create-order fast path
// verifies, the first request of a turn of the event loop on the loop and the later ones on libuv's
// thread pool (the other core), so that neither server has a core the other lacks; the bench measures
// it beside the targets, as a figure.
import { createPublicKey, verify } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type ServerResponse } from "node:http"

const key = createPublicKey(readFileSync(process.argv[2]!, "utf8"))
const padMs = Number(process.argv[4] ?? 0)
const onPool = process.argv[5] === "pool"
let orders = 0

/** Answers one request whose signature check gave `valid`: the envelope the mock would send. */
const answer = (valid: boolean, body: string, res: ServerResponse) => {
  let payload: unknown
  let status = 200
  if (!valid) {
    status = 401
    payload = { code: "signError", msg: "signature verification failed", data: null }
  } else {
    try {
      const order = JSON.parse(body) as { orderId: string }
      payload = {
        code: "SUCCESS",
        msg: null,
        data: {
          orderSn: `PC${++orders}`,
          outerOrder: order.orderId,
          h5Url: `http://127.0.0.1/h5/checkout/PC${orders}`
        }
      }
    } catch {
      status = 400
      payload = { code: "paramError", msg: "body is not JSON", data: null }
    }
  }
  if (padMs > 0) for (const end = performance.now() + padMs; performance.now() < end; );
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(payload))
}

// Requests taken in this turn of the event loop, counted as the mock's fast path counts them.
let taken = 0
const newTurn = () => {
  taken = 0
}
const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  if (taken++ === 0) setImmediate(newTurn)
  const busy = onPool && taken > 1
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8")
    const text = Buffer.from(`${req.method} ${req.url}\n${req.headers["x-r-ak"]}.${req.headers["x-r-ts"]}.${body}`)
    const signature = Buffer.from(String(req.headers["x-r-signature"] ?? ""), "base64")
    if (!busy) return answer(verify("sha256", text, key, signature), body, res)
    verify("sha256", text, key, signature, (error, valid) => answer(error === null && valid, body, res))
  })
})
server.listen(Number(process.argv[3] ?? 0), "127.0.0.1")
