// Raw HTTP/1.1 over a real socket: exactly the bytes given go out (duplicate or missing headers,
// broken framing, invalid UTF-8), and the answer is read until the server closes or answers once.
import { connect } from "node:net"

/** One parsed HTTP answer, or how the exchange ended without one. */
export type RawAnswer =
  | {
      readonly kind: "answer"
      readonly status: number
      /** Header names lower-cased; a repeated header keeps its values joined by ", ". */
      readonly headers: Readonly<Record<string, string>>
      readonly body: string
    }
  | { readonly kind: "closed"; readonly received: string }
  | { readonly kind: "timeout"; readonly received: string }

const parse = (raw: Buffer): RawAnswer | undefined => {
  const end = raw.indexOf("\r\n\r\n")
  if (end === -1) return undefined
  const head = raw.subarray(0, end).toString("latin1")
  const [statusLine = "", ...lines] = head.split("\r\n")
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)
  if (match === null) return undefined
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon === -1) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  const status = Number(match[1])
  // 100 Continue is an interim answer: the real one follows.
  if (status === 100) return parse(raw.subarray(end + 4))
  const rest = raw.subarray(end + 4)
  const length = headers["content-length"]
  if (length !== undefined) {
    if (rest.length < Number(length)) return undefined
    return { kind: "answer", status, headers, body: rest.subarray(0, Number(length)).toString("utf8") }
  }
  if (headers["transfer-encoding"]?.toLowerCase() === "chunked") {
    let offset = 0
    const parts: Array<Buffer> = []
    for (;;) {
      const lineEnd = rest.indexOf("\r\n", offset)
      if (lineEnd === -1) return undefined
      const size = Number.parseInt(rest.subarray(offset, lineEnd).toString("latin1"), 16)
      if (Number.isNaN(size)) return undefined
      if (size === 0) return { kind: "answer", status, headers, body: Buffer.concat(parts).toString("utf8") }
      if (rest.length < lineEnd + 2 + size + 2) return undefined
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size))
      offset = lineEnd + 2 + size + 2
    }
  }
  return undefined
}

/**
 * Sends `bytes` to 127.0.0.1:`port` and resolves with the first complete answer, or with how the
 * exchange ended (the server closed without one, or nothing complete came within `timeoutMs`).
 * Never rejects. With `halfClose`, the client ends its side after writing (a truncated body).
 */
export const rawExchange = (
  port: number,
  bytes: string | Uint8Array,
  options: { readonly timeoutMs?: number; readonly halfClose?: boolean; readonly host?: string } = {}
): Promise<RawAnswer> =>
  new Promise((resolve) => {
    const socket = connect(port, options.host ?? "127.0.0.1")
    let received = Buffer.alloc(0)
    let settled = false
    const settle = (answer: RawAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(answer)
    }
    const timer = setTimeout(
      () => settle({ kind: "timeout", received: received.toString("latin1") }),
      options.timeoutMs ?? 10_000
    )
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const answer = parse(received)
      if (answer !== undefined) settle(answer)
    })
    socket.on("close", () => settle(parse(received) ?? { kind: "closed", received: received.toString("latin1") }))
    socket.on("error", () => undefined)
    socket.write(typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes, () => {
      if (options.halfClose) socket.end()
    })
  })

/** An HTTP/1.1 request's bytes from its parts; `headers` are written as given, in order, repeats kept. */
export const requestBytes = (
  method: string,
  path: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body: Uint8Array | string = ""
): Buffer => {
  const head = `${method} ${path} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`
  return Buffer.concat([Buffer.from(head, "latin1"), typeof body === "string" ? Buffer.from(body, "utf8") : body])
}
