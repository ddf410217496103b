/**
 * The callback endpoint audit (CONTRACT.md "Callback endpoint audit"): the battery of callbacks
 * that tells a merchant whether their endpoint verifies, windows, deduplicates and answers as it
 * must. The checks are data, defined once here; the mock sends them over the network and
 * `@pc/client/testing` hands them to a Fetch-style handler, each through its own `send`.
 *
 * @since 0.1.0
 */
import { callbackStringToSign } from "./Canonical.js"
import type { Signer } from "./Crypto.js"
import { CallbackHeaders } from "./Headers.js"

/** What a check expects of the endpoint: a 2xx (`accept`) or any other answer (`reject`). */
export type Expectation = "accept" | "reject"

/** A check's verdict: `warn` is a doubt that does not fail the audit. */
export type Verdict = "pass" | "fail" | "warn"

/**
 * The callbacks' time out (ms): an answer later than this is a failed delivery (CONTRACT.md
 * "Callbacks"). Answers over {@link SLOW_ANSWER_MS} are a `warn`.
 *
 * @example
 * ```ts
 * import { CallbackAudit } from "@pc/core"
 *
 * const tooSlow = (ms: number) => ms > CallbackAudit.CALLBACK_TIMEOUT_MS
 * ```
 */
export const CALLBACK_TIMEOUT_MS = 10_000

/**
 * Answers slower than this are a `warn` on the `latency` check.
 *
 * @example
 * ```ts
 * import { CallbackAudit } from "@pc/core"
 *
 * const slow = (ms: number) => ms > CallbackAudit.SLOW_ANSWER_MS
 * ```
 */
export const SLOW_ANSWER_MS = 2_000

/**
 * The whole audit ends within this much time (ms), whatever the endpoint does; checks that would
 * start later are reported as not sent.
 *
 * @example
 * ```ts
 * import { CallbackAudit } from "@pc/core"
 *
 * const deadline = Date.now() + CallbackAudit.AUDIT_BUDGET_MS
 * ```
 */
export const AUDIT_BUDGET_MS = 50_000

/** After this many requests without an answer in time, the rest of the battery is not sent. */
const MAX_TIMEOUTS = 3

/**
 * How far outside the 5 minute window the stale and future checks stamp their callbacks (ms).
 */
const OUTSIDE_WINDOW_MS = 6 * 60_000

/** The order a battery's callbacks describe, as its callbacks carry it. */
export interface AuditOrder {
  readonly orderSn: string
  readonly outerOrder: string
  readonly amount: string
  readonly currency: string
  readonly status: "PAID" | "FAILED" | "EXPIRED"
  readonly createdAt: string
  readonly updatedAt: string
}

/** Everything the battery needs to build its callbacks. */
export interface AuditSetup {
  /** Where the callbacks go (reported as is; the `send` function decides how). */
  readonly url: string
  /** The environment whose callbacks these are: `sandbox`, `production` or `gray`. */
  readonly environment: string
  /** The merchant's appKey: the start of every signed string. */
  readonly appKey: string
  readonly order: AuditOrder
  /** The environment's current platform key, which signs every valid callback. */
  readonly platformSigner: Signer
  /** Its version, sent as `X-R-Key-Version`. */
  readonly keyVersion: number
  /** A key that is not a platform key, for `wrong-key`. */
  readonly wrongSigner: Signer
  /** A key version that does not exist in the environment (default: the current one plus 1000). */
  readonly unknownKeyVersion?: number
  /** The clock, in ms (default `Date.now`). */
  readonly now?: () => number
}

/** One request the battery sends: always a `POST` to the setup's URL. */
export interface AuditRequest {
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * What became of one request: the HTTP status, or `null` with `error` when there was none in time
 * (`timedOut`) or the connection failed; `ms` from sending until the status (or the error).
 * `location` is a redirect's target, never followed.
 */
export interface AuditAnswer {
  readonly status: number | null
  readonly ms: number
  readonly timedOut?: boolean
  readonly error?: string
  readonly location?: string
}

/**
 * Sends one request, answering within `timeoutMs` (an endpoint that takes longer is a timed out
 * answer, not a longer wait).
 */
export type Send = (request: AuditRequest, timeoutMs: number) => Promise<AuditAnswer>

/** One check of the report. `status` is the worst answer's (the first refusal of an accept check). */
export interface CheckResult {
  readonly id: string
  readonly title: string
  readonly expect: Expectation
  readonly verdict: Verdict
  readonly status: number | null
  readonly ms: number
  readonly detail: string
}

/** The report (CONTRACT.md): `passed` is true when no check is `fail`. */
export interface AuditReport {
  readonly url: string
  readonly environment: string
  readonly appKey: string
  readonly orderSn: string
  readonly passed: boolean
  readonly checks: ReadonlyArray<CheckResult>
}

/** What a check's requests may use: the setup, and fresh stamps and signatures. */
interface Builder {
  readonly setup: AuditSetup
  /** A valid signature over `appKey.ts.body` whose text holds `+` and `/`, with its timestamp near `aroundMs`. */
  readonly signed: (body: string, aroundMs?: number) => Promise<{ readonly ts: string; readonly signature: string }>
  readonly now: () => number
  readonly eventBody: (extra?: string) => string
  /** The `valid` check's request, once sent (for `retry` and `replay`). */
  readonly validRequest: () => AuditRequest | undefined
  readonly validBody: () => string | undefined
}

/** One check as data: what it sends, what it expects, and what a wrong answer usually means. */
export interface CheckDefinition {
  readonly id: string
  readonly title: string
  readonly expect: Expectation
  /** Sent all at once (`concurrent-duplicates`) rather than one after another. */
  readonly together?: boolean
  /**
   * For the duplicate checks: how many more times the handler should have acted when the check
   * has run (`retry` and `replay`: 0, `concurrent-duplicates`: 1), where the caller can count.
   */
  readonly actsOnce?: number
  /** Why an endpoint answers this check wrongly, in one sentence: the usual cause. */
  readonly wrongBecause: string
  readonly requests: (builder: Builder) => Promise<ReadonlyArray<AuditRequest>>
}

const headersOf = (ts: string | undefined, signature: string | undefined, keyVersion: number | undefined) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (ts !== undefined) headers[CallbackHeaders.timestamp] = ts
  if (signature !== undefined) headers[CallbackHeaders.signature] = signature
  if (keyVersion !== undefined) headers[CallbackHeaders.keyVersion] = String(keyVersion)
  return headers
}

const signedRequest = async (b: Builder, body: string): Promise<AuditRequest> => {
  const { ts, signature } = await b.signed(body)
  return { headers: headersOf(ts, signature, b.setup.keyVersion), body }
}

const withoutHeader = (name: string) => async (b: Builder) => {
  const request = await signedRequest(b, b.eventBody())
  const headers = { ...request.headers }
  delete headers[name]
  return [{ headers, body: request.body }]
}

/**
 * The battery, in the order it runs (CONTRACT.md's table). `latency` is not here: it is judged
 * from every answer above.
 *
 * @example
 * ```ts
 * import { CallbackAudit } from "@pc/core"
 *
 * CallbackAudit.CHECKS.map((check) => `${check.id}: ${check.expect}`)
 * ```
 */
export const CHECKS: ReadonlyArray<CheckDefinition> = [
  {
    id: "valid",
    title: "A valid callback",
    expect: "accept",
    wrongBecause:
      "a valid callback was refused: verify with the platform key of X-R-Key-Version (not your own key) over `<appKey>.<X-R-Ts>.<raw body>`, and read X-R-Signature as is (a `+` read as a space breaks it)",
    requests: async (b) => [await signedRequest(b, b.eventBody())]
  },
  {
    id: "valid-escaped-body",
    title: "A valid callback whose body a JSON parser would re-serialise differently",
    expect: "accept",
    wrongBecause:
      "the signature was verified over a body a JSON parser re-serialised (an escaped `\\/`, a `\\u00e9`, `1.50` came back changed), not over the raw bytes received",
    requests: async (b) => [await signedRequest(b, b.eventBody(',"memo":"caf\\u00e9 \\/ audit","fee":1.50'))]
  },
  {
    id: "unknown-fields",
    title: "A valid callback with fields the merchant has never seen",
    expect: "accept",
    wrongBecause:
      "a strict schema refused fields it did not know: the service adds fields to callbacks, so ignore unknown ones",
    requests: async (b) => [
      await signedRequest(b, b.eventBody(',"channel":"card","settlement":{"batch":"B1","fees":[]},"riskScore":3'))
    ]
  },
  {
    id: "retry",
    title: "The valid event again, signed afresh, as a retry is",
    expect: "accept",
    actsOnce: 0,
    wrongBecause:
      "a retry (same eventId, new X-R-Ts) was refused: a delivery already processed must be answered 2xx again, deduplicated by eventId, not by timestamp or signature",
    requests: async (b) => {
      const body = b.validBody() ?? b.eventBody()
      return [await signedRequest(b, body)]
    }
  },
  {
    id: "concurrent-duplicates",
    title: "One new event sent 5 times at once",
    expect: "accept",
    together: true,
    actsOnce: 1,
    wrongBecause:
      "simultaneous deliveries of one event raced: a check-then-insert on eventId lets two through to the insert (a unique-key error, a 500); insert with a unique eventId (INSERT ... ON CONFLICT DO NOTHING) and answer 2xx to the duplicate",
    requests: async (b) => {
      const body = b.eventBody()
      const out: Array<AuditRequest> = []
      for (let i = 0; i < 5; i++) out.push(await signedRequest(b, body))
      return out
    }
  },
  {
    id: "tampered-body",
    title: "A valid signature, then the amount changed",
    expect: "reject",
    wrongBecause:
      "a body changed after signing was accepted: the signature is not verified at all, or not over the body received",
    requests: async (b) => {
      const request = await signedRequest(b, b.eventBody())
      return [{ headers: request.headers, body: request.body.replace(/"amount":"[^"]*"/, '"amount":"0.01"') }]
    }
  },
  {
    id: "whitespace-body",
    title: "A valid signature over the compact body, sent pretty-printed",
    expect: "reject",
    wrongBecause:
      "a body whose bytes differ from the signed ones was accepted: the signature was verified over a parsed and re-serialised body, not the raw bytes",
    requests: async (b) => {
      const request = await signedRequest(b, b.eventBody())
      return [{ headers: request.headers, body: JSON.stringify(JSON.parse(request.body), null, 2) }]
    }
  },
  {
    id: "stale-timestamp",
    title: "A valid signature, X-R-Ts 6 minutes in the past",
    expect: "reject",
    wrongBecause:
      "a callback stamped 6 minutes ago was accepted: there is no timestamp window; refuse X-R-Ts more than 5 minutes from now",
    requests: async (b) => {
      const body = b.eventBody()
      const { ts, signature } = await b.signed(body, b.now() - OUTSIDE_WINDOW_MS)
      return [{ headers: headersOf(ts, signature, b.setup.keyVersion), body }]
    }
  },
  {
    id: "future-timestamp",
    title: "A valid signature, X-R-Ts 6 minutes in the future",
    expect: "reject",
    wrongBecause:
      "a callback stamped 6 minutes ahead was accepted: the window checks only the past; refuse |now - X-R-Ts| over 5 minutes",
    requests: async (b) => {
      const body = b.eventBody()
      const { ts, signature } = await b.signed(body, b.now() + OUTSIDE_WINDOW_MS)
      return [{ headers: headersOf(ts, signature, b.setup.keyVersion), body }]
    }
  },
  {
    id: "timestamp-mismatch",
    title: "Signed over one timestamp, sent with another inside the window",
    expect: "reject",
    wrongBecause:
      "a signature over another timestamp was accepted: build the signed string from the X-R-Ts header as received, not from your own clock",
    requests: async (b) => {
      const body = b.eventBody()
      const { signature } = await b.signed(body, b.now() - 60_000)
      return [{ headers: headersOf(String(b.now()), signature, b.setup.keyVersion), body }]
    }
  },
  {
    id: "unknown-key-version",
    title: "Signed with the current key, X-R-Key-Version a version that does not exist",
    expect: "reject",
    wrongBecause:
      "a key version that does not exist was accepted: the key is picked without looking at X-R-Key-Version; look it up by version and refuse unknown ones",
    requests: async (b) => {
      const body = b.eventBody()
      const { ts, signature } = await b.signed(body)
      return [{ headers: headersOf(ts, signature, b.setup.unknownKeyVersion ?? b.setup.keyVersion + 1000), body }]
    }
  },
  {
    id: "wrong-key",
    title: "Signed with a key that is not a platform key",
    expect: "reject",
    wrongBecause:
      "a signature by a key that is not a platform key was accepted: the signature is not verified, or verified with a key that is not the platform's",
    requests: async (b) => {
      const body = b.eventBody()
      const ts = String(b.now())
      const signature = await b.setup.wrongSigner.sign(
        callbackStringToSign({ appKey: b.setup.appKey, timestamp: ts, body })
      )
      return [{ headers: headersOf(ts, signature, b.setup.keyVersion), body }]
    }
  },
  {
    id: "other-app-key",
    title: "Signed over another merchant's appKey",
    expect: "reject",
    wrongBecause:
      "a signature over another merchant's appKey was accepted: the signed string must start with your own appKey",
    requests: async (b) => {
      const body = b.eventBody()
      const ts = String(b.now())
      const signature = await b.setup.platformSigner.sign(
        callbackStringToSign({ appKey: "00000000-0000-4000-8000-0000000a0d17", timestamp: ts, body })
      )
      return [{ headers: headersOf(ts, signature, b.setup.keyVersion), body }]
    }
  },
  {
    id: "missing-signature",
    title: "X-R-Signature left out",
    expect: "reject",
    wrongBecause: "a callback without X-R-Signature was accepted: a missing header must be refused, not skipped",
    requests: withoutHeader(CallbackHeaders.signature)
  },
  {
    id: "missing-timestamp",
    title: "X-R-Ts left out",
    expect: "reject",
    wrongBecause: "a callback without X-R-Ts was accepted: a missing header must be refused, not skipped",
    requests: withoutHeader(CallbackHeaders.timestamp)
  },
  {
    id: "missing-key-version",
    title: "X-R-Key-Version left out",
    expect: "reject",
    wrongBecause:
      "a callback without X-R-Key-Version was accepted: a missing header must be refused, not defaulted to a key",
    requests: withoutHeader(CallbackHeaders.keyVersion)
  },
  {
    id: "malformed-signature",
    title: "The signature URL-encoded, and not Base64 at all",
    expect: "reject",
    wrongBecause:
      "a signature that is not standard Base64 was accepted: the signature is not verified, or decoded too leniently",
    requests: async (b) => {
      const body = b.eventBody()
      const { ts, signature } = await b.signed(body)
      return [
        { headers: headersOf(ts, encodeURIComponent(signature), b.setup.keyVersion), body },
        { headers: headersOf(ts, "not base64 at all!", b.setup.keyVersion), body }
      ]
    }
  },
  {
    id: "replay",
    title: "A byte-identical copy of an accepted callback",
    expect: "reject",
    actsOnce: 0,
    wrongBecause:
      "a byte-identical replay was accepted: fine if it was deduplicated by eventId and not acted on twice; the spec asks merchants to record processed timestamps",
    requests: async (b) => {
      const valid = b.validRequest()
      return [valid ?? (await signedRequest(b, b.eventBody()))]
    }
  }
]

/** The `latency` check's title and expectation, judged from every answer. */
const LATENCY = { id: "latency", title: "Every answer within the callback timeout", expect: "accept" as const }

/**
 * The ids of every check in report order, `latency` last.
 *
 * @example
 * ```ts
 * import { CallbackAudit } from "@pc/core"
 *
 * CallbackAudit.CHECK_IDS.includes("replay") // true
 * ```
 */
export const CHECK_IDS: ReadonlyArray<string> = [...CHECKS.map((check) => check.id), LATENCY.id]

const isOk = (status: number | null) => status !== null && status >= 200 && status < 300

const describeAnswer = (answer: AuditAnswer): string => {
  if (answer.status === null)
    return answer.timedOut === true
      ? `no answer within the callback timeout`
      : `no answer (${answer.error ?? "connection failed"})`
  if (answer.status >= 300 && answer.status < 400)
    return `HTTP ${answer.status} redirect${answer.location === undefined ? "" : ` to ${answer.location}`} (never followed)`
  return `HTTP ${answer.status}`
}

/**
 * Judges one check from its answers (and, for the duplicate checks, how many more times the
 * handler acted, where the caller counts).
 *
 * @example
 * ```ts
 * import { CallbackAudit } from "@pc/core"
 *
 * const check = CallbackAudit.CHECKS.find((c) => c.id === "tampered-body")!
 * CallbackAudit.judge(check, [{ status: 200, ms: 3 }]).verdict // "fail"
 * ```
 */
export const judge = (check: CheckDefinition, answers: ReadonlyArray<AuditAnswer>, actedMore?: number): CheckResult => {
  const ms = Math.max(0, ...answers.map((a) => a.ms))
  const result = (verdict: Verdict, status: number | null, detail: string): CheckResult => ({
    id: check.id,
    title: check.title,
    expect: check.expect,
    verdict,
    status,
    ms,
    detail
  })
  if (check.expect === "accept") {
    const refused = answers.filter((a) => !isOk(a.status) || a.ms > CALLBACK_TIMEOUT_MS)
    if (refused.length > 0) {
      const first = refused[0]!
      const count = answers.length > 1 ? `${refused.length} of ${answers.length}: ` : ""
      // No answer, or a redirect, says nothing of verification: the cause is named instead.
      if (first.status === null)
        return result(
          "fail",
          null,
          `${count}${describeAnswer(first)}: ${
            first.timedOut === true
              ? "the endpoint is slower than the callback timeout; store the event, answer 2xx, then do the slow work"
              : "is the endpoint running, and reachable from where the audit runs?"
          }.`
        )
      if (first.status >= 300 && first.status < 400)
        return result(
          "fail",
          first.status,
          `${count}answered ${describeAnswer(first)}: callbacks never follow redirects; give the endpoint's final URL.`
        )
      const late = isOk(first.status) ? ` after ${first.ms} ms, past the callback timeout` : ""
      return result("fail", first.status, `${count}answered ${describeAnswer(first)}${late}: ${check.wrongBecause}.`)
    }
  } else {
    const accepted = answers.find((a) => isOk(a.status))
    if (accepted !== undefined) {
      const verdict = check.id === "replay" ? "warn" : "fail"
      return result(verdict, accepted.status, `answered ${describeAnswer(accepted)}: ${check.wrongBecause}.`)
    }
    const serverError = answers.find((a) => a.status !== null && a.status >= 500)
    if (serverError !== undefined)
      return result(
        "warn",
        serverError.status,
        `refused with ${describeAnswer(serverError)}: a 5xx asks the service to retry a forgery; answer 4xx (401) instead.`
      )
  }
  const status = answers[0]?.status ?? null
  if (check.actsOnce !== undefined && actedMore !== undefined && actedMore !== check.actsOnce)
    return result(
      "fail",
      status,
      `the handler acted ${actedMore} time${actedMore === 1 ? "" : "s"} where it should have acted ${check.actsOnce === 0 ? "not at all" : "once"}: deduplicate by eventId before acting.`
    )
  const seen = answers
    .map(describeAnswer)
    .filter((text, i, all) => all.indexOf(text) === i)
    .join(", ")
  return result("pass", status, check.expect === "accept" ? `accepted (${seen}).` : `refused (${seen}), as it must be.`)
}

/**
 * Judges `latency` from every answer of the battery: `fail` past the callback timeout (or none in
 * time), `warn` over {@link SLOW_ANSWER_MS}.
 *
 * @example
 * ```ts
 * import { CallbackAudit } from "@pc/core"
 *
 * CallbackAudit.judgeLatency([{ status: 200, ms: 2500 }]).verdict // "warn"
 * ```
 */
export const judgeLatency = (answers: ReadonlyArray<AuditAnswer>): CheckResult => {
  const answered = answers.filter((a) => a.status !== null)
  const ms = Math.max(0, ...answers.map((a) => a.ms))
  const timedOut = answers.filter((a) => a.timedOut === true || a.ms > CALLBACK_TIMEOUT_MS).length
  const base = { id: LATENCY.id, title: LATENCY.title, expect: LATENCY.expect, status: null, ms }
  if (timedOut > 0)
    return {
      ...base,
      verdict: "fail",
      detail: `${timedOut} of ${answers.length} answers came later than the callback timeout (${CALLBACK_TIMEOUT_MS / 1000} s): the service counts them as failed and retries; store the event and answer 2xx at once, then do the slow work after answering.`
    }
  const slow = answered.filter((a) => a.ms > SLOW_ANSWER_MS).length
  if (slow > 0)
    return {
      ...base,
      verdict: "warn",
      detail: `${slow} answers took over ${SLOW_ANSWER_MS / 1000} s (slowest ${ms} ms): close to the ${CALLBACK_TIMEOUT_MS / 1000} s callback timeout; answer before doing slow work.`
    }
  return { ...base, verdict: "pass", detail: `every answer came within ${ms} ms.` }
}

/** How {@link run} reports progress and counts what the handler acted on. */
export interface RunOptions {
  /** Called as each check is judged, in report order. */
  readonly onCheck?: (check: CheckResult) => void
  /** How many events the handler has acted on so far, where the caller can count it. */
  readonly actedOn?: () => number | Promise<number>
  /** The whole audit's time (ms), default {@link AUDIT_BUDGET_MS}. */
  readonly budgetMs?: number
  /** One request's time (ms), default {@link CALLBACK_TIMEOUT_MS}. */
  readonly timeoutMs?: number
}

const randomPart = () => Math.random().toString(36).slice(2, 12).padEnd(10, "0")

/**
 * Runs the battery through `send` and resolves the report. Never rejects for what the endpoint
 * does (a failed `send` is a check's answer); rejects only when signing itself fails.
 *
 * @example
 * ```ts
 * import { CallbackAudit } from "@pc/core"
 *
 * const report = await CallbackAudit.run(setup, async (request, timeoutMs) => {
 *   const started = Date.now()
 *   const response = await fetch(setup.url, { method: "POST", headers: request.headers, body: request.body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) })
 *   return { status: response.status, ms: Date.now() - started }
 * })
 * report.passed // true when no check failed
 * ```
 */
export const run = async (setup: AuditSetup, send: Send, options: RunOptions = {}): Promise<AuditReport> => {
  const now = setup.now ?? Date.now
  const budgetMs = options.budgetMs ?? AUDIT_BUDGET_MS
  const timeoutMs = options.timeoutMs ?? CALLBACK_TIMEOUT_MS
  const startedMs = now()
  const auditId = randomPart()
  let events = 0
  let lastTs = 0
  let validRequest: AuditRequest | undefined
  let validBody: string | undefined
  const signed = async (body: string, aroundMs?: number) => {
    // Unique, increasing stamps: a retry is never byte-identical to the delivery before it.
    let ts = Math.max(Math.floor(aroundMs ?? now()), aroundMs === undefined ? lastTs + 1 : 0)
    for (;;) {
      const signature = await setup.platformSigner.sign(
        callbackStringToSign({ appKey: setup.appKey, timestamp: ts, body })
      )
      // Every valid signature holds `+` and `/`, so a receiver that decodes `+` as a space shows.
      if (signature.includes("+") && signature.includes("/")) {
        if (aroundMs === undefined) lastTs = ts
        return { ts: String(ts), signature }
      }
      ts += 1
    }
  }
  const { order } = setup
  const eventType =
    order.status === "PAID" ? "order.paid" : order.status === "FAILED" ? "order.failed" : "order.expired"
  const eventBody = (extra = "") => {
    events += 1
    const compact = JSON.stringify({
      eventId: `evt_audit_${auditId}_${events}`,
      eventType,
      orderSn: order.orderSn,
      outerOrder: order.outerOrder,
      amount: order.amount,
      currency: order.currency,
      status: order.status,
      createdAt: order.createdAt,
      updatedAt: order.updatedAt
    })
    return extra === "" ? compact : compact.slice(0, -1) + extra + "}"
  }
  const builder: Builder = {
    setup,
    signed,
    now,
    eventBody,
    validRequest: () => validRequest,
    validBody: () => validBody
  }
  const checks: Array<CheckResult> = []
  const all: Array<AuditAnswer> = []
  const report = (check: CheckResult) => {
    checks.push(check)
    options.onCheck?.(check)
  }
  let skipped: string | undefined
  for (const check of CHECKS) {
    const left = budgetMs - (now() - startedMs)
    if (skipped === undefined && left < 1000) skipped = `the audit's ${budgetMs / 1000} s were used up`
    if (skipped !== undefined) {
      report({
        id: check.id,
        title: check.title,
        expect: check.expect,
        verdict: "fail",
        status: null,
        ms: 0,
        detail: `not sent: ${skipped}.`
      })
      continue
    }
    const requests = await check.requests(builder)
    const before = check.actsOnce !== undefined && options.actedOn !== undefined ? await options.actedOn() : undefined
    const limit = Math.min(timeoutMs, left)
    const answers =
      check.together === true
        ? await Promise.all(requests.map((r) => send(r, limit)))
        : await requests.reduce<Promise<Array<AuditAnswer>>>(
            async (done, r) => [...(await done), await send(r, limit)],
            Promise.resolve([])
          )
    const acted = before === undefined || options.actedOn === undefined ? undefined : (await options.actedOn()) - before
    if (check.id === "valid" && isOk(answers[0]?.status ?? null)) {
      validRequest = requests[0]
      validBody = requests[0]?.body
    }
    if (check.id === "valid" && validBody === undefined) validBody = requests[0]?.body
    all.push(...answers)
    report(judge(check, answers, acted))
    if (all.filter((a) => a.timedOut === true).length >= MAX_TIMEOUTS)
      skipped ??= `the endpoint did not answer ${MAX_TIMEOUTS} requests within the callback timeout`
  }
  report(judgeLatency(all))
  return {
    url: setup.url,
    environment: setup.environment,
    appKey: setup.appKey,
    orderSn: order.orderSn,
    passed: checks.every((c) => c.verdict !== "fail"),
    checks
  }
}
