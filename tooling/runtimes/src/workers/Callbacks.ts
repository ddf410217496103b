// A merchant's callback endpoint as a worker, on the Promise facade (`@pc/client/promise`) bundled as
// a merchant's bundler would: `POST /callbacks` is the ready-made Fetch handler
// (`handleCallbackRequest`), `POST /verify` calls `verifyCallbackRequest` and answers what it
// decided, `GET /events` lists the events verified so far, `GET /runtime` names the runtime.
import { CallbackVerificationError, type CallbackVerifierClient, createCallbackVerifier } from "@pc/client/promise"
import type { CallbackEvent } from "@pc/core/Wire"
import { runtimeHere } from "./RuntimeHere.js"

/** The worker's `env`: `CONFIG` is JSON of {@link CallbacksConfig} (a text binding under workerd). */
export interface CallbacksEnv {
  readonly CONFIG: string
}

/** Who the endpoint is: the merchant's appKey and the sandbox platform keys, PEM by version. */
export interface CallbacksConfig {
  readonly appKey: string
  readonly platformKeys: Readonly<Record<number, string>>
}

/** What `POST /verify` answers when the verifier refuses. */
export interface Refusal {
  readonly code: string
  readonly reason: string
  readonly message: string
}

// Made once, on the first request, and kept: the verifier holds the replay guard.
let verifier: Promise<CallbackVerifierClient> | undefined
const events: Array<CallbackEvent> = []

const verifierOf = (env: CallbacksEnv): Promise<CallbackVerifierClient> => {
  if (verifier === undefined) {
    const config = JSON.parse(env.CONFIG) as CallbacksConfig
    verifier = createCallbackVerifier({
      environment: "sandbox",
      appKey: config.appKey,
      platformKeys: { sandbox: config.platformKeys }
    })
  }
  return verifier
}

export default {
  async fetch(request: Request, env: CallbacksEnv): Promise<Response> {
    const { pathname } = new URL(request.url)
    if (request.method === "GET" && pathname === "/runtime") return Response.json({ runtime: runtimeHere() })
    if (request.method === "GET" && pathname === "/events") return Response.json(events)
    if (request.method !== "POST") return new Response("not found", { status: 404 })
    const callbacks = await verifierOf(env)
    if (pathname === "/callbacks") {
      return callbacks.handleCallbackRequest(request, (event) => {
        events.push(event)
      })
    }
    if (pathname === "/verify") {
      try {
        const event = await callbacks.verifyCallbackRequest(request)
        events.push(event)
        return Response.json({ code: "SUCCESS", msg: null, data: null })
      } catch (error) {
        if (!(error instanceof CallbackVerificationError)) throw error
        const refusal: Refusal = { code: error.code, reason: error.reason, message: error.message }
        return Response.json(refusal, { status: 401 })
      }
    }
    return new Response("not found", { status: 404 })
  }
}
