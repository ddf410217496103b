// The baseline for the mock: a bare node:http server that does the irreducible work of a signed
// create (read the body, verify SHA256withRSA over the string to sign, answer JSON) and nothing else.
import { createPublicKey, verify } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

const key = createPublicKey(readFileSync(process.argv[2]!, "utf8"))
let n = 0
const server = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8")
    const text = `POST ${req.url}\n${req.headers["x-r-ak"]}.${req.headers["x-r-ts"]}.${body}`
    const ok = verify("sha256", Buffer.from(text), key, Buffer.from(String(req.headers["x-r-signature"]), "base64"))
    const payload = ok
      ? { code: "SUCCESS", msg: null, data: { orderSn: `PC${++n}`, outerOrder: "x", h5Url: "http://x" } }
      : { code: "signError", msg: "signature verification failed", data: null }
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" })
    res.end(JSON.stringify(payload))
  })
})
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  if (typeof address === "object" && address !== null) console.log(`listening on http://127.0.0.1:${address.port}`)
})
