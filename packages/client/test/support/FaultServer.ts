// A small stand-in for the service on 127.0.0.1: it verifies each create-order request's signature
// with @pc/crypto-node as the service would (spec 5.3), records every attempt, and answers what the
// test scripts: an envelope, a raw body, a hung connection or a reset.
import { Canonical, type Crypto, Headers, KeyRing, Timestamp } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { readBody } from "@pc/test-support"
import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { keyOf } from "./vectors.js"

export interface Attempt {
  /** Local arrival time, Date.now(). */
  readonly at: number
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly timestamp: string | undefined
  readonly keyVersion: string | undefined
  readonly signature: string | undefined
  /** The signature verifies with the merchant public key of that version, over the string to sign. */
  readonly signatureValid: boolean
  /** X-R-TS lies within +-5 minutes of the server's clock. */
  readonly withinWindow: boolean
}

export type Reply =
  | {
      readonly kind: "envelope"
      readonly status: number
      readonly code: string
      readonly msg?: string | null
      readonly data?: unknown
      readonly headers?: Record<string, string>
    }
  | {
      readonly kind: "raw"
      readonly status: number
      readonly body: string
      readonly contentType: string
      readonly headers?: Record<string, string>
    }
  | { readonly kind: "hang" }
  | { readonly kind: "reset" }

export interface FaultServer {
  readonly url: string
  readonly attempts: ReadonlyArray<Attempt>
  close(): Promise<void>
}

/** The merchant public keys the server knows, by version (merchant-v1 and merchant-v2 of the vectors). */
export const merchantVerifiers: Promise<KeyRing.KeyRing<Crypto.Verifier>> = KeyRing.importVerifiers(NodeCrypto, {
  1: keyOf("merchant-v1").publicSpkiPem,
  2: keyOf("merchant-v2").publicSpkiPem
})

/** The create-order SUCCESS reply for an attempt, echoing its orderId. */
export const success = (attempt: Attempt, orderSn = "PC202611210001"): Reply => {
  const request = JSON.parse(attempt.body) as { readonly orderId: string }
  return {
    kind: "envelope",
    status: 200,
    code: "SUCCESS",
    msg: null,
    data: { orderSn, outerOrder: request.orderId, h5Url: `http://127.0.0.1/h5/checkout/${orderSn}` }
  }
}

const send = (res: ServerResponse, reply: Exclude<Reply, { kind: "hang" | "reset" }>) => {
  const body =
    reply.kind === "envelope"
      ? JSON.stringify({ code: reply.code, msg: reply.msg ?? null, data: reply.data ?? null })
      : reply.body
  res.writeHead(reply.status, {
    "content-type": reply.kind === "envelope" ? "application/json" : reply.contentType,
    "x-request-id": "req-test-1",
    ...reply.headers
  })
  res.end(body)
}

/** Starts the server on 127.0.0.1 on a free port; `script` decides each answer from the attempt and its index. */
export const startFaultServer = async (script: (attempt: Attempt, index: number) => Reply): Promise<FaultServer> => {
  const verifiers = await merchantVerifiers
  const attempts: Array<Attempt> = []
  const server = createServer((req, res) => {
    void readBody(req).then(async (raw) => {
      const body = raw.toString("utf8")
      const parsed = Headers.parseRequest(req.headers, { signature: "required" })
      const path = (req.url ?? "/").split("?")[0]!
      let signatureValid = false
      let withinWindow = false
      if (parsed.ok) {
        const verifier = verifiers.get(parsed.headers.keyVersion)
        const stringToSign = Canonical.requestStringToSign({
          method: req.method ?? "",
          path,
          appKey: parsed.headers.appKey,
          timestamp: parsed.headers.timestamp,
          body
        })
        signatureValid = verifier !== undefined && (await verifier.verify(stringToSign, parsed.headers.signature!))
        withinWindow = Timestamp.checkWindow(parsed.headers.timestamp, Date.now()).ok
      }
      const attempt: Attempt = {
        at: Date.now(),
        method: req.method ?? "",
        path,
        headers: req.headers,
        body,
        timestamp: Headers.get(req.headers, "X-R-TS"),
        keyVersion: Headers.get(req.headers, "X-R-KEY-VERSION"),
        signature: Headers.get(req.headers, "X-R-Signature"),
        signatureValid,
        withinWindow
      }
      attempts.push(attempt)
      const reply = script(attempt, attempts.length - 1)
      if (reply.kind === "hang") return
      if (reply.kind === "reset") {
        req.socket.destroy()
        return
      }
      send(res, reply)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** {@link startFaultServer} for an Effect test's scope: closed when the scope closes. */
export const faultServer = (script: (attempt: Attempt, index: number) => Reply) =>
  Effect.acquireRelease(
    Effect.promise(() => startFaultServer(script)),
    (server) => Effect.promise(() => server.close())
  )
