// Reading what a node:http server was sent: the one body reader of the tests (every receiver and
// stand-in server here reads its requests with it), and a request's headers as single values.
import type { IncomingMessage } from "node:http"

/**
 * Reads a request's body to its end: the bytes exactly as sent (a callback's signature covers them,
 * so nothing may decode or re-encode them). Rejects when the request errors.
 *
 * @example
 * ```ts
 * createServer(async (req, res) => {
 *   const body = await readBody(req)
 *   res.end(String(body.length))
 * })
 * ```
 */
export const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

/**
 * The headers of a request as single values (a repeated header joined by ", "), names lower case:
 * what a Fetch `Request` or a replay takes.
 *
 * @example
 * ```ts
 * const request = new Request(url, { method: "POST", headers: headersOf(req), body: await readBody(req) })
 * ```
 */
export const headersOf = (req: Pick<IncomingMessage, "headers">): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") out[name] = value
    else if (Array.isArray(value)) out[name] = value.join(", ")
  }
  return out
}
