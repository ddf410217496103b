/**
 * Reads a request body as the exact bytes sent (the signature covers them), within the size limit,
 * and checks its media type (judged by `domain/JsonBody.ts`). Failures are envelopes: payloadTooLarge,
 * unsupportedMediaType, paramError.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import type { IncomingMessage } from "node:http"
import { ApiError, paramError } from "../domain/ApiError.js"
import { decodeUtf8, parseJsonObject, requireJsonMediaType } from "../domain/JsonBody.js"

const tooLarge = (limit: number) =>
  new ApiError({ code: "payloadTooLarge", msg: `request body is larger than the limit of ${limit} bytes` })

/**
 * The raw body bytes, refusing more than `limit` bytes without keeping the rest.
 *
 * Read from Node's request directly rather than through `request.stream`: ending that stream early
 * destroys the request and with it the socket, so a chunked body (no Content-Length) over the limit
 * got its connection dropped instead of the payloadTooLarge envelope. Here the rest of an oversized
 * body is drained and discarded while the envelope is written, as Node does for a declared one.
 */
export const rawBody = (limit: number): Effect.Effect<Uint8Array, ApiError, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    rawBodyOf(NodeHttpServerRequest.toIncomingMessage(request), limit)
  )

/**
 * {@link rawBody} of Node's own request: what the HttpApi routes read a body with.
 *
 * @example
 * ```ts
 * const bytes = yield* rawBodyOf(incomingMessage, 65536) // ApiError payloadTooLarge over the limit
 * ```
 */
export const rawBodyOf = (source: IncomingMessage, limit: number): Effect.Effect<Uint8Array, ApiError> =>
  Effect.async<Uint8Array, ApiError>((resume) => {
    const detach = readBody(source, limit, (read) =>
      resume(read instanceof ApiError ? Effect.fail(read) : Effect.succeed(read))
    )
    return Effect.sync(detach)
  })

/**
 * Reads the raw body of Node's request within `limit` bytes and calls `done` once with the bytes or
 * the refusal (payloadTooLarge, or paramError when the body cannot be read). Over the limit the
 * rest is drained and discarded. Returns what stops listening (the reader went away). The
 * create-order fast path reads with it directly, {@link rawBodyOf} through an Effect.
 *
 * @example
 * ```ts
 * readBody(request, 65536, (read) => (read instanceof ApiError ? refuse(read) : serve(read)))
 * ```
 */
export const readBody = (
  source: IncomingMessage,
  limit: number,
  done: (read: Uint8Array | ApiError) => void
): (() => void) => {
  const declared = source.headers["content-length"]
  if (declared !== undefined && /^[0-9]+$/.test(declared) && Number(declared) > limit) {
    done(tooLarge(limit))
    return () => {}
  }
  const chunks: Array<Uint8Array> = []
  let size = 0
  const detach = () => {
    source.off("data", onData)
    source.off("end", onEnd)
    source.off("error", onError)
  }
  const onData = (chunk: Uint8Array) => {
    size += chunk.length
    if (size > limit) {
      detach()
      // Drain the rest unkept; an error while draining (client gone) is nobody's concern now.
      source.on("error", () => {})
      source.resume()
      done(tooLarge(limit))
      return
    }
    chunks.push(chunk)
  }
  const onEnd = () => {
    detach()
    done(concat(chunks, size))
  }
  const onError = () => {
    detach()
    done(paramError("the request body could not be read"))
  }
  source.on("data", onData)
  source.on("end", onEnd)
  source.on("error", onError)
  return detach
}

const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]!
  const body = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.length
  }
  return body
}

/** Refuses a body whose Content-Type is not application/json (parameters such as charset=utf-8 allowed). */
export const requireJsonContentType: Effect.Effect<void, ApiError, HttpServerRequest.HttpServerRequest> =
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    requireJsonMediaType(request.headers["content-type"])
  )

/** Content type check, size-limited read, UTF-8 decode and JSON object parse: the /dev routes' body. */
export const jsonObjectBody = (limit: number) =>
  requireJsonContentType.pipe(
    Effect.zipRight(rawBody(limit)),
    Effect.flatMap(decodeUtf8),
    Effect.flatMap(parseJsonObject)
  )
