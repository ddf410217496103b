// Reads the raw body of a Node request (http.IncomingMessage, Express, Fastify's raw request)
// without importing node:http: `NodeRequest` names only the parts of IncomingMessage that are used.
import type { NodeRequest } from "../Callback.js"
import { utf8 } from "./bytes.js"

export type NodeBodyResult =
  | { readonly ok: true; readonly body: Uint8Array | string }
  | {
      readonly ok: false
      readonly reason: "BodyAlreadyParsed" | "BodyUnreadable" | "BodyTooLarge"
      readonly message: string
    }

const isEmptyPlainObject = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  Object.getPrototypeOf(value) === Object.prototype &&
  Object.keys(value).length === 0

const ALREADY_PARSED =
  "the request body was already parsed into an object (express.json() or another JSON body parser ran " +
  "before this handler), so the raw bytes the signature covers are gone: mount express.raw({ type: " +
  '"application/json" }) on the callback route, or register the callback route before the JSON body parser'

/** The raw body: `req.body` when a raw or text parser already produced it, else read from the stream. */
export const readNodeBody = (req: NodeRequest, maxBytes: number): Promise<NodeBodyResult> => {
  const parsed = req.body
  if (parsed instanceof Uint8Array || typeof parsed === "string") {
    const size = typeof parsed === "string" ? utf8(parsed).length : parsed.length
    if (size > maxBytes) {
      return Promise.resolve({ ok: false, reason: "BodyTooLarge", message: `the body is over ${maxBytes} bytes` })
    }
    return Promise.resolve({ ok: true, body: parsed })
  }
  if (parsed !== undefined && parsed !== null) {
    // body-parser sets `{}` without reading when the content type is not its own: the stream is still there.
    if (!(isEmptyPlainObject(parsed) && req.readableEnded === false)) {
      return Promise.resolve({ ok: false, reason: "BodyAlreadyParsed", message: ALREADY_PARSED })
    }
  }
  if (req.readableEnded === true) {
    return Promise.resolve({
      ok: false,
      reason: "BodyUnreadable",
      message:
        "the request body stream was already read by another middleware and no raw body was kept: " +
        "use express.raw() on this route or mount this handler before any body parser"
    })
  }
  return new Promise((resolve) => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    const finish = (result: NodeBodyResult) => {
      req.removeListener("data", onData)
      req.removeListener("end", onEnd)
      req.removeListener("error", onError)
      resolve(result)
    }
    const onData = (chunk: Uint8Array | string) => {
      const bytes = typeof chunk === "string" ? utf8(chunk) : chunk
      size += bytes.length
      // Stop keeping bytes past the limit; Node discards the rest of the request once the response ends.
      if (size > maxBytes) finish({ ok: false, reason: "BodyTooLarge", message: `the body is over ${maxBytes} bytes` })
      else chunks.push(bytes)
    }
    const onEnd = () => {
      const body = new Uint8Array(size)
      let offset = 0
      for (const chunk of chunks) {
        body.set(chunk, offset)
        offset += chunk.length
      }
      finish({ ok: true, body })
    }
    const onError = (error: Error) =>
      finish({ ok: false, reason: "BodyUnreadable", message: `the request body could not be read: ${error.message}` })
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
  })
}
