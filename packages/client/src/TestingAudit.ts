/**
 * The callback endpoint audit in-process (CONTRACT.md "Callback endpoint audit"): core's battery,
 * the very checks the mock sends over the network, handed to a Fetch-style handler in a unit test,
 * signed with a test platform key. Re-exported by `@pc/client/testing`.
 *
 * @since 0.1.0
 */
import * as CallbackAudit from "@pc/core/CallbackAudit"
import type * as Crypto from "@pc/core/Crypto"
import { WebCrypto } from "@pc/crypto-web"
import { generatePlatformKey, type TestPlatformKey } from "./Testing.js"

/** A Fetch-style handler, as a route handler of Next.js, Hono, a worker or Bun is. */
export type FetchHandler = (request: Request) => Response | Promise<Response>

/** What {@link auditHandler} needs: the key your handler trusts, and how to count what it acts on. */
export interface AuditHandlerOptions {
  /** The merchant appKey your handler verifies with. */
  readonly appKey: string
  /** The test platform key your handler trusts (its public key), from `generatePlatformKey()`. */
  readonly platformKey: TestPlatformKey
  /** The version your handler trusts it under; default 1. */
  readonly keyVersion?: number | undefined
  /** Default `sandbox`; reported as is. */
  readonly environment?: string | undefined
  /** The URL the requests carry; default `http://localhost/callbacks`. */
  readonly url?: string | undefined
  /**
   * How many events your handler has acted on so far (for example the rows it stored). Given, the
   * audit also checks that `retry`, `replay` and `concurrent-duplicates` were acted on once.
   */
  readonly actedOn?: (() => number | Promise<number>) | undefined
  /** Called as each check is judged. */
  readonly onCheck?: ((check: CallbackAudit.CheckResult) => void) | undefined
}

let wrongKey: Promise<Crypto.Signer> | undefined

/**
 * Runs the callback endpoint audit against `handler` in-process and resolves the report
 * (`passed` is true when no check is `fail`). Never rejects for what the handler does: a handler
 * that throws is a check's answer (no status), one slower than the callback timeout is judged so.
 *
 * @example
 * ```ts
 * import { createCallbackVerifier } from "@pc/client"
 * import * as Testing from "@pc/client/testing"
 *
 * const platformKey = await Testing.generatePlatformKey()
 * const verifier = await createCallbackVerifier(Testing.verifierOptions({ appKey, platformPublicKeyPem: platformKey.publicKeyPem }))
 * const stored = new Set<string>()
 * const report = await Testing.auditHandler((request) => verifier.handleCallbackRequest(request, (event) => void stored.add(event.eventId)), {
 *   appKey,
 *   platformKey,
 *   actedOn: () => stored.size
 * })
 * expect(report.checks.filter((check) => check.verdict === "fail")).toEqual([])
 * ```
 */
export const auditHandler = async (
  handler: FetchHandler,
  options: AuditHandlerOptions
): Promise<CallbackAudit.AuditReport> => {
  wrongKey ??= generatePlatformKey().then((key) => WebCrypto.importPrivateKey(key.privateKeyPem))
  const url = options.url ?? "http://localhost/callbacks"
  const now = new Date().toISOString()
  const send: CallbackAudit.Send = async (request, timeoutMs) => {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<CallbackAudit.AuditAnswer>((resolve) => {
      timer = setTimeout(
        () => resolve({ status: null, ms: timeoutMs, timedOut: true, error: `no answer within ${timeoutMs} ms` }),
        timeoutMs
      )
    })
    const answered = (async (): Promise<CallbackAudit.AuditAnswer> => {
      try {
        const response = await handler(
          new Request(url, { method: "POST", headers: request.headers, body: request.body })
        )
        const ms = elapsed()
        await response.body?.cancel()
        const location = response.headers.get("location")
        return { status: response.status, ms, ...(location === null ? {} : { location }) }
      } catch (error) {
        return {
          status: null,
          ms: elapsed(),
          error: `the handler threw: ${error instanceof Error ? error.message : String(error)}`
        }
      }
    })()
    const answer = await Promise.race([answered, late])
    clearTimeout(timer)
    return answer
  }
  return CallbackAudit.run(
    {
      url,
      environment: options.environment ?? "sandbox",
      appKey: options.appKey,
      order: {
        orderSn: "PC20260101000000000001",
        outerOrder: "M-AUDIT-1",
        amount: "10.00",
        currency: "USD",
        status: "PAID",
        createdAt: now,
        updatedAt: now
      },
      platformSigner: await WebCrypto.importPrivateKey(options.platformKey.privateKeyPem),
      keyVersion: options.keyVersion ?? 1,
      wrongSigner: await wrongKey
    },
    send,
    {
      ...(options.actedOn === undefined ? {} : { actedOn: options.actedOn }),
      ...(options.onCheck === undefined ? {} : { onCheck: options.onCheck })
    }
  )
}
