// Callback endpoints on 127.0.0.1 for the endpoint audit's tests (the mock's, and pc's): one correct
// receiver, and the same receiver with one flaw planted, each written the way people write it by
// mistake. They trust the mock's platform keys by version (GET /dev/platform-keys), as a merchant's
// endpoint would.
import * as Wire from "@pc/core/Wire"
import { createPublicKey, verify as rsaVerify } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { readBody } from "./Http.js"

export type Flaw =
  | "none"
  | "no-verification"
  | "reserialised-body"
  | "no-window"
  | "past-only-window"
  | "key-without-version"
  | "plus-as-space"
  | "strict-schema"
  | "check-then-insert"
  | "slow"
  | "forgery-500"
  | "optional-signature"
  | "url-decoded-signature"
  | "version-defaults-to-current"

export interface FlawedEndpoint {
  readonly url: string
  /** How many events it acted on (a new eventId stored). */
  readonly acted: () => number
  readonly close: () => Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The fields a strict schema written today knows: the callback body's, as `@pc/core` defines it. */
const KNOWN = Object.keys(Wire.CallbackEvent.fields)

/**
 * A receiver for merchant `appKey` trusting the platform keys of the mock at `mockUrl`, with `flaw`.
 *
 * @example
 * ```ts
 * const endpoint = await startFlawedEndpoint(mock.url, mock.testMerchant.appKey, "past-only-window")
 * // POST /dev/merchants/{appKey}/audit with { url: endpoint.url } fails the window check
 * ```
 */
export const startFlawedEndpoint = async (mockUrl: string, appKey: string, flaw: Flaw): Promise<FlawedEndpoint> => {
  const listed = (await (await fetch(`${mockUrl}/dev/platform-keys`)).json()) as {
    data: Array<{ version: number; publicKeyPem: string; status: string }>
  }
  const keys = new Map(
    listed.data.filter((k) => k.status !== "retired").map((k) => [k.version, createPublicKey(k.publicKeyPem)])
  )
  const currentVersion = Math.max(...listed.data.filter((k) => k.status === "current").map((k) => k.version))
  const current = keys.get(currentVersion)!
  const processed = new Set<string>()
  const seenSignatures = new Set<string>()
  let acted = 0
  const refuse = (response: ServerResponse, why: string) => {
    response.writeHead(flaw === "forgery-500" ? 500 : 401, { "content-type": "text/plain" }).end(why)
  }
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = (await readBody(request)).toString("utf8")
    if (flaw === "slow") await sleep(1500)
    const ts = request.headers["x-r-ts"]
    let signature = request.headers["x-r-signature"]
    let version = request.headers["x-r-key-version"]
    // "Headers may arrive URL-encoded": decoding turns a %2B-encoded signature back into a valid one.
    if (flaw === "url-decoded-signature" && typeof signature === "string") signature = decodeURIComponent(signature)
    // "No version means the current key": a missing header is defaulted instead of refused.
    if (flaw === "version-defaults-to-current" && version === undefined) version = String(currentVersion)
    if (flaw !== "no-verification") {
      if (flaw === "optional-signature" && signature === undefined) {
        // "Signature checks are optional in sandbox": skipped when the header is absent.
      } else {
        if (typeof ts !== "string" || typeof signature !== "string" || typeof version !== "string")
          return refuse(response, "missing header")
        const age = Date.now() - Number(ts)
        if (flaw === "past-only-window") {
          if (age > 300_000) return refuse(response, "stale")
        } else if (flaw !== "no-window" && !(Math.abs(age) <= 300_000)) return refuse(response, "outside window")
        const key = flaw === "key-without-version" ? current : keys.get(Number(version))
        if (key === undefined) return refuse(response, "unknown key version")
        if (flaw === "plus-as-space") signature = new URLSearchParams(`s=${signature}`).get("s") ?? ""
        if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return refuse(response, "malformed signature")
        const body = flaw === "reserialised-body" ? JSON.stringify(JSON.parse(raw)) : raw
        const ok = rsaVerify("sha256", Buffer.from(`${appKey}.${ts}.${body}`), key, Buffer.from(signature, "base64"))
        if (!ok) return refuse(response, "bad signature")
        if (seenSignatures.has(ts + signature)) return refuse(response, "replayed")
        seenSignatures.add(ts + signature)
      }
    }
    const event = JSON.parse(raw) as Record<string, unknown>
    if (flaw === "strict-schema") {
      const unknown = Object.keys(event).filter((k) => !KNOWN.includes(k))
      if (unknown.length > 0) return response.writeHead(400).end(`unknown fields ${unknown.join(",")}`)
    }
    const eventId = String(event.eventId)
    if (flaw === "check-then-insert") {
      // Looks the id up, does some work, then inserts: two deliveries at once both pass the look-up.
      if (processed.has(eventId)) return response.writeHead(200).end("duplicate")
      await sleep(30)
      if (processed.has(eventId)) return response.writeHead(500).end("UNIQUE constraint failed: events.event_id")
      processed.add(eventId)
      acted += 1
      return response.writeHead(200).end("ok")
    }
    if (!processed.has(eventId)) {
      processed.add(eventId)
      acted += 1
    }
    response.writeHead(200).end("ok")
  }
  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.writeHead(500).end())
  })
  return listening(server, () => acted)
}

const listening = async (server: Server, acted: () => number = () => 0): Promise<FlawedEndpoint> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    acted,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/**
 * Hostile endpoints: never answers, drips a byte a second, answers 10 MB, redirects to `target`.
 *
 * @example
 * ```ts
 * const hang = await startHostile("hang") // the audit must still end within 60 s
 * ```
 */
export const startHostile = (kind: "hang" | "drip" | "huge" | "redirect", target = ""): Promise<FlawedEndpoint> => {
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer((request, response) => {
    request.resume()
    if (kind === "hang") return
    if (kind === "redirect") return response.writeHead(307, { location: target }).end()
    if (kind === "huge") {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      return response.end(Buffer.alloc(10 * 1024 * 1024, 120))
    }
    // The status line itself, one byte a second.
    const text = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"
    let i = 0
    const timer = setInterval(() => {
      if (i >= text.length || request.socket.destroyed) return clearInterval(timer)
      request.socket.write(text[i++]!)
    }, 1000)
    timers.add(timer)
  })
  server.on("close", () => {
    for (const timer of timers) clearInterval(timer)
  })
  return listening(server)
}
