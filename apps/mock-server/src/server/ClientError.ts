/**
 * Requests that Node judges before any handler runs still get the envelope and an `X-Request-Id`
 * (CONTRACT.md), not Node's bare answer or a silently closed socket: malformed framing, a header
 * section over Node's limit, timeouts, an unknown `Expect`, `CONNECT`, a missing or repeated `Host`,
 * a repeated `Content-Type`. This sits at the socket, below whatever HTTP framework routes requests.
 */
import { ErrorCode, Headers } from "@pc/core"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"

const REQUEST_ID_HEADER = Headers.REQUEST_ID.toLowerCase()

/** An answer decided at the HTTP layer: its status, envelope code and message. */
export interface EarlyAnswer {
  readonly status: number
  readonly code: ErrorCode.ErrorCode
  readonly msg: string
}

const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large"
}

const answer = (code: ErrorCode.ErrorCode, msg: string, status: number = ErrorCode.httpStatus(code)): EarlyAnswer => ({
  status,
  code,
  msg
})

/**
 * What to answer a request Node's parser refused with `errorCode` (its `clientError`).
 *
 * @example
 * ```ts
 * clientErrorAnswer("HPE_INVALID_CHUNK_SIZE") // { status: 400, code: "paramError", msg: "malformed HTTP request (HPE_INVALID_CHUNK_SIZE)" }
 * ```
 */
export const clientErrorAnswer = (errorCode: string | undefined): EarlyAnswer => {
  switch (errorCode) {
    // A header block larger than the mock reads is 431, as more headers than it reads is
    // (CONTRACT.md "Running the mock"): the request is refused, never silently cut.
    case "HPE_HEADER_OVERFLOW":
      return answer("paramError", "request headers are larger than the server accepts", 431)
    // Node's headersTimeout and requestTimeout: the client was too slow, its request was not malformed.
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return answer("paramError", "request timed out: the request did not arrive whole in time")
    default:
      return answer("paramError", `malformed HTTP request (${errorCode ?? "parse error"})`)
  }
}

/** The raw HTTP/1.1 bytes of an {@link EarlyAnswer}, closing the connection. */
export const rawAnswer = (early: EarlyAnswer): string => {
  const body = JSON.stringify({ code: early.code, msg: early.msg, data: null })
  return (
    `HTTP/1.1 ${early.status} ${REASONS[early.status] ?? "Error"}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`
  )
}

/** The raw HTTP/1.1 answer to a request Node's parser refused with `errorCode`. */
export const clientErrorResponse = (errorCode: string | undefined): string => rawAnswer(clientErrorAnswer(errorCode))

/**
 * Header rules Node does not enforce, judged on the headers exactly as received: Node keeps the
 * first of two `Host` or `Content-Type` headers and drops the other silently, and (with its own
 * check off, see below) lets an HTTP/1.1 request without `Host` through.
 *
 * @example
 * ```ts
 * headerRuleViolation({ httpVersion: "1.1", rawHeaders: ["Host", "a", "Host", "b"] }) // 400 paramError
 * ```
 */
export const headerRuleViolation = (request: {
  readonly httpVersion: string
  readonly rawHeaders: ReadonlyArray<string>
}): EarlyAnswer | undefined => {
  let hosts = 0
  let contentTypes = 0
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    // Only a name of the right length is lowered: every request passes here.
    const name = request.rawHeaders[i]!
    if (name.length === 4) {
      if (name.toLowerCase() === "host") hosts++
    } else if (name.length === 12 && name.toLowerCase() === "content-type") contentTypes++
  }
  // RFC 9112 3.2: a server MUST answer 400 to an HTTP/1.1 request with no Host or more than one.
  if (hosts > 1) return answer("paramError", "the Host header is sent more than once; send it once")
  if (hosts === 0 && request.httpVersion === "1.1") {
    return answer("paramError", "the Host header is missing; HTTP/1.1 requires it")
  }
  // Which of two media types was meant is not ours to guess: refused as the media-type error.
  if (contentTypes > 1) {
    return answer("unsupportedMediaType", "the Content-Type header is sent more than once; send application/json once")
  }
  return undefined
}

/**
 * Answers a request whose framing is intact: its body is read and dropped, and the connection stays
 * usable. Closing it instead, with the body still arriving, makes the kernel reset the connection,
 * and a reset can discard the answer before the client reads it.
 */
const respond = (req: IncomingMessage, res: ServerResponse, early: EarlyAnswer): void => {
  req.resume()
  const body = JSON.stringify({ code: early.code, msg: early.msg, data: null })
  res.writeHead(early.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    [REQUEST_ID_HEADER]: randomUUID()
  })
  res.end(body)
}

/**
 * Gives every answer Node would decide by itself the envelope: `clientError` (framing, header
 * overflow, timeouts), `checkExpectation` (an `Expect` other than 100-continue: 417), `connect`
 * (405), and the {@link headerRuleViolation}s, judged before the request reaches the handler.
 *
 * @example
 * ```ts
 * const server = withEnvelopeForClientErrors(createServer())
 * ```
 */
export const withEnvelopeForClientErrors = (server: Server): Server => {
  // Node's own Host check answers a bare 400; headerRuleViolation answers it with the envelope.
  ;(server as Server & { requireHostHeader: boolean }).requireHostHeader = false
  // The request each connection has handed to a handler: a framing error in its body comes after
  // the handler took it, and the handler answers too (one request, one answer, CONTRACT.md).
  const handedOver = new WeakMap<Duplex, readonly [IncomingMessage, ServerResponse]>()
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy()
    const current = handedOver.get(socket)
    if (current !== undefined && !current[0].complete) {
      const [, res] = current
      // Answered already: the connection is closed after that answer, with nothing more on it.
      if (res.headersSent) return socket.end()
      // Not yet: this answer is the one, and the handler's later one goes nowhere.
      res.detachSocket(socket as Socket)
    }
    socket.end(clientErrorResponse(error.code))
  })
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    respond(req, res, answer("paramError", "the Expect header is not supported (only 100-continue)", 417))
  })
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    if (!socket.writable) return socket.destroy()
    socket.end(rawAnswer(answer("methodNotAllowed", "CONNECT is not supported: this is not a proxy")))
  })
  // The router listens for "request" too; a refused request must not reach it, and listeners
  // cannot stop each other, so the check sits in front of the event itself.
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse]
      handedOver.set(req.socket, [req, res])
      const violation = headerRuleViolation(req)
      if (violation !== undefined) {
        respond(req, res, violation)
        return true
      }
    }
    return emit(event, ...args)
  }) as Server["emit"]
  return server
}
