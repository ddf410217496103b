/**
 * Requests that Node refuses before any handler runs (a malformed request line or header, a header
 * section over Node's limit) still get the envelope and a request id, not Node's bare answer.
 */
import { Headers } from "@pc/core"
import { randomUUID } from "node:crypto"
import type { Server } from "node:http"
import type { Duplex } from "node:stream"

/** The raw HTTP/1.1 answer to a request Node's parser refused with `errorCode`. */
export const clientErrorResponse = (errorCode: string | undefined): string => {
  // The contract pairs payloadTooLarge with 413, whichever part of the request is too large.
  const [status, reason, code, msg] =
    errorCode === "HPE_HEADER_OVERFLOW"
      ? [413, "Payload Too Large", "payloadTooLarge", "request headers are larger than the server accepts"]
      : [400, "Bad Request", "paramError", `malformed HTTP request (${errorCode ?? "parse error"})`]
  const body = JSON.stringify({ code, msg, data: null })
  return (
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `${Headers.REQUEST_ID.toLowerCase()}: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`
  )
}

/**
 * Answers Node's `clientError`s on `server` with {@link clientErrorResponse}, then closes the socket.
 *
 * @example
 * ```ts
 * const server = withEnvelopeForClientErrors(createServer())
 * ```
 */
export const withEnvelopeForClientErrors = (server: Server): Server =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy()
    socket.end(clientErrorResponse(error.code))
  })
