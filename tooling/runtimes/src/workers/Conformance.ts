// The crypto conformance suite of @pc/crypto-web as a worker: `GET /cases` lists its cases without
// running them, `GET /run` runs them all and answers the results with the runtime that ran them.
import { describeCryptoProvider } from "@pc/crypto-conformance"
import { WebCrypto } from "@pc/crypto-web"
import { type CaseResult, caseNames, runSuites } from "../Harness.js"
import { runtimeHere } from "./RuntimeHere.js"

/** What `GET /run` answers. */
export interface ConformanceRun {
  readonly runtime: string
  readonly results: ReadonlyArray<CaseResult>
}

let registered = false
const register = () => {
  if (!registered) describeCryptoProvider("web (crypto.subtle)", WebCrypto)
  registered = true
}

export default {
  async fetch(request: Request): Promise<Response> {
    register()
    const { pathname } = new URL(request.url)
    if (pathname === "/cases") return Response.json(caseNames())
    if (pathname === "/run") {
      const run: ConformanceRun = { runtime: runtimeHere(), results: await runSuites() }
      return Response.json(run)
    }
    return new Response("not found", { status: 404 })
  }
}
