// The merchant's own webhook endpoint in the CLI's tests: a real HTTP server on 127.0.0.1 (port 0)
// that keeps every request's headers and exact bytes and answers with a fixed status.
import { createServer, type IncomingHttpHeaders } from "node:http"

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

export interface Receiver {
  /** `http://127.0.0.1:<port><path>`. */
  readonly url: string
  /** The requests so far, in order. */
  readonly received: ReadonlyArray<Received>
  readonly close: () => Promise<void>
}

/** Starts a receiver that answers every request with `status` and a small JSON body. */
export const startReceiver = async (status: number, path = "/webhooks/payment"): Promise<Receiver> => {
  const received: Array<Received> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks) })
      response.writeHead(status, { "content-type": "application/json" }).end('{"received":true}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
