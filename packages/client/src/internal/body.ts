// Reads the raw body of a callback request, never holding more than the limit: a Fetch `Request`
// (read chunk by chunk from `request.body`), and a Node request (http.IncomingMessage, Express,
// NestJS) without importing node:http. Fastify's raw request (`request.raw`) does not work: Fastify's
// content parser has consumed its stream before the handler runs. With Fastify, register
// `fastify.addContentTypeParser("application/json", { parseAs: "buffer" }, (req, body, done) =>
// done(null, body))` on the callback route's scope and pass that Buffer:
// `verifier.verify({ headers: request.headers, body: request.body })`.
import type { FetchRequest, NodeRequest } from "../CallbackHandler.js"
import { joinChunks, utf8 } from "./bytes.js"

export type BodyResult =
  | { readonly ok: true; readonly body: Uint8Array }
  | {
      readonly ok: false
      readonly reason: "BodyAlreadyParsed" | "BodyUnreadable" | "BodyTooLarge"
      readonly message: string
    }

const tooLarge = (maxBytes: number): BodyResult => ({
  ok: false,
  reason: "BodyTooLarge",
  message: `the body is over ${maxBytes} bytes`
})

const unreadable = (error: unknown): BodyResult => ({
  ok: false,
  reason: "BodyUnreadable",
  message: `the request body could not be read: ${error instanceof Error ? error.message : String(error)}`
})

/** The bytes of a raw body a parser kept (a Buffer, a Uint8Array or a string), else `undefined`. */
const rawBytes = (value: unknown): Uint8Array | undefined =>
  value instanceof Uint8Array ? value : typeof value === "string" ? utf8(value) : undefined

const isEmptyPlainObject = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  Object.getPrototypeOf(value) === Object.prototype &&
  Object.keys(value).length === 0

const ALREADY_PARSED =
  "the request body was already parsed into an object (express.json() or another JSON body parser ran " +
  "before this handler), so the raw bytes the signature covers are gone: mount express.raw({ type: " +
  '"application/json" }) on the callback route, or register the callback route before the JSON body parser; ' +
  "a parser that keeps the raw body as req.rawBody works too (NestJS with rawBody: true, express.json({ verify })); " +
  "in a Next.js API route, export const config = { api: { bodyParser: false } }"

const ALREADY_READ =
  "the request body stream was already read by another middleware and no raw body was kept: " +
  "use express.raw() on this route or mount this handler before any body parser (with Fastify, add a " +
  'content type parser with parseAs: "buffer" and pass the Buffer to verify)'

/**
 * The raw body of a Node request: `req.body` when a raw or text parser produced bytes or a string,
 * else `req.rawBody` when a parser kept it beside the parsed object, else read from the stream.
 */
export const readNodeBody = (req: NodeRequest, maxBytes: number): Promise<BodyResult> => {
  const parsed = req.body
  const kept = rawBytes(parsed) ?? rawBytes(req.rawBody)
  if (kept !== undefined) return Promise.resolve(kept.length > maxBytes ? tooLarge(maxBytes) : { ok: true, body: kept })
  if (parsed !== undefined && parsed !== null) {
    // body-parser sets `{}` without reading when the content type is not its own: the stream is still there.
    if (!(isEmptyPlainObject(parsed) && req.readableEnded === false)) {
      return Promise.resolve({ ok: false, reason: "BodyAlreadyParsed", message: ALREADY_PARSED })
    }
  }
  if (req.readableEnded === true) {
    return Promise.resolve({ ok: false, reason: "BodyUnreadable", message: ALREADY_READ })
  }
  return new Promise((resolve) => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    const finish = (result: BodyResult) => {
      req.removeListener("data", onData)
      req.removeListener("end", onEnd)
      req.removeListener("error", onError)
      resolve(result)
    }
    const onData = (chunk: Uint8Array | string) => {
      const bytes = typeof chunk === "string" ? utf8(chunk) : chunk
      size += bytes.length
      // Stop keeping bytes past the limit; Node discards the rest of the request once the response ends.
      if (size > maxBytes) finish(tooLarge(maxBytes))
      else chunks.push(bytes)
    }
    const onEnd = () => finish({ ok: true, body: joinChunks(chunks, size) })
    const onError = (error: Error) => finish(unreadable(error))
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
  })
}

/**
 * The raw body of a Fetch `Request`, read from `request.body` chunk by chunk: a body without
 * Content-Length (chunked, streamed) is never held past `maxBytes`; the stream is cancelled there.
 * `arrayBuffer()` only for request objects without a `body` stream.
 */
export const readFetchBody = async (request: FetchRequest, maxBytes: number): Promise<BodyResult> => {
  if (request.bodyUsed === true) {
    return {
      ok: false,
      reason: "BodyAlreadyParsed",
      message:
        "the Request body was already read (request.json() or request.text() ran before this handler), so " +
        "the raw bytes the signature covers are gone: verify first, or pass request.clone()"
    }
  }
  const stream = request.body
  // A declared length over the limit is refused before reading anything.
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) {
    await stream?.cancel().catch(() => undefined)
    return tooLarge(maxBytes)
  }
  if (stream === null) return { ok: true, body: new Uint8Array(0) }
  if (stream === undefined) {
    try {
      const buffer = await request.arrayBuffer()
      return buffer.byteLength > maxBytes ? tooLarge(maxBytes) : { ok: true, body: new Uint8Array(buffer) }
    } catch (error) {
      return unreadable(error)
    }
  }
  let reader: ReadableStreamDefaultReader<Uint8Array>
  try {
    reader = stream.getReader()
  } catch (error) {
    return unreadable(error)
  }
  const chunks: Array<Uint8Array> = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > maxBytes) {
        // The Content-Length may be absent or false: stop at the limit and tell the sender we are done.
        await reader.cancel().catch(() => undefined)
        return tooLarge(maxBytes)
      }
      chunks.push(value)
    }
  } catch (error) {
    return unreadable(error)
  } finally {
    reader.releaseLock()
  }
  return { ok: true, body: joinChunks(chunks, size) }
}
