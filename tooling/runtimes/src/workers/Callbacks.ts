// A merchant's integration as a worker, on the Promise facade (`@pc/client/promise`) bundled as a
// merchant's bundler would: `POST /orders` creates an order (signed here, with WebCrypto),
// `POST /callbacks` is the ready-made Fetch handler (`handleCallbackRequest`), `POST /verify` calls
// `verifyCallbackRequest` and answers what it decided, `GET /events` lists the events verified so
// far, `GET /runtime` names the runtime.
import {
  CallbackVerificationError,
  createPaymentClient,
  PaymentConnectError,
  type PaymentConnectClient
} from "@pc/client/promise"
import type { Environment } from "@pc/core/Environment"
import type { CallbackEvent } from "@pc/core/Wire"
import { runtimeHere } from "./RuntimeHere.js"

/** The worker's `env`: `CONFIG` is JSON of {@link CallbacksConfig} (a text binding under workerd). */
export interface CallbacksEnv {
  readonly CONFIG: string
}

/** Who the merchant is and where the service is: its appKey, its TEST-ONLY key, the platform keys. */
export interface CallbacksConfig {
  readonly environment: Environment
  readonly baseUrl: string
  readonly appKey: string
  readonly privateKeyPem: string
  /** The environment's platform public keys, PEM by version. */
  readonly platformKeys: Readonly<Record<number, string>>
}

/** What `POST /verify` and `POST /orders` answer when the client throws. */
export interface Refusal {
  readonly code: string
  readonly reason?: string
  readonly message: string
}

// Made once, on the first request, and kept: the client holds the keys and the replay guard.
let client: Promise<PaymentConnectClient> | undefined
const events: Array<CallbackEvent> = []

const clientOf = (env: CallbacksEnv): Promise<PaymentConnectClient> => {
  if (client === undefined) {
    const config = JSON.parse(env.CONFIG) as CallbacksConfig
    client = createPaymentClient({
      environment: config.environment,
      baseUrl: config.baseUrl,
      appKey: config.appKey,
      privateKeys: { 1: config.privateKeyPem },
      callbacks: { platformKeys: { [config.environment]: config.platformKeys } }
    })
  }
  return client
}

const refused = (error: unknown, status: number): Response => {
  if (!(error instanceof PaymentConnectError)) throw error
  const refusal: Refusal = {
    code: error.code,
    message: error.message,
    ...(error instanceof CallbackVerificationError ? { reason: error.reason } : {})
  }
  return Response.json(refusal, { status })
}

export default {
  async fetch(request: Request, env: CallbacksEnv): Promise<Response> {
    const { pathname } = new URL(request.url)
    if (request.method === "GET" && pathname === "/runtime") return Response.json({ runtime: runtimeHere() })
    if (request.method === "GET" && pathname === "/events") return Response.json(events)
    if (request.method !== "POST") return new Response("not found", { status: 404 })
    const payments = await clientOf(env)
    if (pathname === "/orders") {
      const { orderId } = (await request.json()) as { orderId: string }
      return payments.createOrder({ orderId, amount: "10.00", currency: "USD" }).then(
        (order) => Response.json(order),
        (error: unknown) => refused(error, 502)
      )
    }
    if (pathname === "/callbacks") {
      return payments.handleCallbackRequest(request, (event) => {
        events.push(event)
      })
    }
    if (pathname === "/verify") {
      return payments.verifyCallbackRequest(request).then(
        (event) => {
          events.push(event)
          return Response.json({ code: "SUCCESS", msg: null, data: null })
        },
        (error: unknown) => refused(error, 401)
      )
    }
    return new Response("not found", { status: 404 })
  }
}
