// The battery's logic, judged with a stand-in signer and `send`: which requests each check makes
// and how answers become verdicts. Real RSA keys and real endpoints are in the mock's audit tests
// and in @pc/client's Testing tests, which run this same module.
import { describe, expect, it } from "vitest"
import {
  type AuditAnswer,
  type AuditRequest,
  type AuditSetup,
  CHECK_IDS,
  CHECKS,
  judge,
  judgeLatency,
  run
} from "../src/CallbackAudit.js"
import type { Signer } from "../src/Crypto.js"

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// A deterministic stand-in: a 344-character Base64-looking text from an FNV hash of the message,
// tagged by key, so that the same message and key give the same text and anything else differs.
const fakeSigner = (tag: string): Signer => ({
  modulusLength: 2048,
  sign: async (message) => {
    const text = tag + (typeof message === "string" ? message : new TextDecoder().decode(message))
    let h = 2166136261
    let out = ""
    for (let i = 0; i < 342; i++) {
      h = Math.imul(h ^ text.charCodeAt(i % text.length) ^ i, 16777619) >>> 0
      for (let j = 0; j < text.length; j += 7) h = Math.imul(h ^ text.charCodeAt(j), 16777619) >>> 0
      out += ALPHABET[h % 64]
    }
    return out + "=="
  }
})

const platform = fakeSigner("platform")
const setup: AuditSetup = {
  url: "http://127.0.0.1:1/callback",
  environment: "production",
  appKey: "7e57c0de-0000-4000-8000-000000000001",
  order: {
    orderSn: "PC20261127000000000001",
    outerOrder: "audit-1",
    amount: "10.00",
    currency: "USD",
    status: "PAID",
    createdAt: "2026-11-27T10:00:00.000Z",
    updatedAt: "2026-11-27T10:00:01.000Z"
  },
  platformSigner: platform,
  keyVersion: 1,
  wrongSigner: fakeSigner("wrong")
}

/** A correct receiver written against the stand-in: raw bytes, window, version, dedup by eventId. */
const correctSend = () => {
  const seen = new Set<string>()
  const timestamps = new Set<string>()
  let acted = 0
  const send = async (request: AuditRequest): Promise<AuditAnswer> => {
    const ts = request.headers["X-R-Ts"]
    const signature = request.headers["X-R-Signature"]
    const version = request.headers["X-R-Key-Version"]
    if (ts === undefined || signature === undefined || version !== "1") return { status: 401, ms: 1 }
    if (Math.abs(Date.now() - Number(ts)) > 300_000) return { status: 401, ms: 1 }
    const expected = await platform.sign(`${setup.appKey}.${ts}.${request.body}`)
    if (expected !== signature) return { status: 401, ms: 1 }
    if (timestamps.has(ts + signature)) return { status: 409, ms: 1 }
    timestamps.add(ts + signature)
    const { eventId } = JSON.parse(request.body) as { eventId: string }
    if (!seen.has(eventId)) {
      seen.add(eventId)
      acted += 1
    }
    return { status: 200, ms: 1 }
  }
  return { send, actedOn: () => acted }
}

describe("CallbackAudit", () => {
  it("lists the contract's checks in order, latency last", () => {
    expect(CHECK_IDS).toEqual([
      "valid",
      "valid-escaped-body",
      "unknown-fields",
      "retry",
      "concurrent-duplicates",
      "tampered-body",
      "whitespace-body",
      "stale-timestamp",
      "future-timestamp",
      "timestamp-mismatch",
      "unknown-key-version",
      "wrong-key",
      "other-app-key",
      "missing-signature",
      "missing-timestamp",
      "missing-key-version",
      "malformed-signature",
      "replay",
      "latency"
    ])
  })

  it("passes a correct receiver, with every valid signature holding + and /", async () => {
    const { send, actedOn } = correctSend()
    const sent: Array<AuditRequest> = []
    const report = await run(
      setup,
      (request) => {
        sent.push(request)
        return send(request)
      },
      { actedOn }
    )
    expect(report.checks.filter((c) => c.verdict !== "pass")).toEqual([])
    expect(report.passed).toBe(true)
    expect(report.checks.map((c) => c.id)).toEqual(CHECK_IDS)
    // valid, valid-escaped-body, unknown-fields, retry and the 5 concurrent duplicates.
    for (const request of sent.slice(0, 9)) {
      expect(request.headers["X-R-Signature"]).toContain("+")
      expect(request.headers["X-R-Signature"]).toContain("/")
    }
    // The escaped body keeps the bytes a parser would change.
    expect(sent[1]!.body).toContain('caf\\u00e9 \\/ audit","fee":1.50}')
    expect(JSON.stringify(JSON.parse(sent[1]!.body))).not.toBe(sent[1]!.body)
  })

  it("a receiver that accepts everything fails every reject check and warns on replay", async () => {
    const report = await run(setup, async () => ({ status: 200, ms: 2 }))
    const verdicts = Object.fromEntries(report.checks.map((c) => [c.id, c.verdict]))
    expect(verdicts["tampered-body"]).toBe("fail")
    expect(verdicts["stale-timestamp"]).toBe("fail")
    expect(verdicts.replay).toBe("warn")
    expect(verdicts.valid).toBe("pass")
    expect(report.passed).toBe(false)
    expect(report.checks.find((c) => c.id === "future-timestamp")!.detail).toContain("only the past")
  })

  it("judges a 5xx rejection as warn and a redirect as a refusal never followed", () => {
    const tampered = CHECKS.find((c) => c.id === "tampered-body")!
    expect(judge(tampered, [{ status: 500, ms: 3 }]).verdict).toBe("warn")
    expect(judge(tampered, [{ status: 401, ms: 3 }]).verdict).toBe("pass")
    const valid = CHECKS.find((c) => c.id === "valid")!
    const redirected = judge(valid, [{ status: 302, ms: 3, location: "http://127.0.0.1:4010/dev/x" }])
    expect(redirected.verdict).toBe("fail")
    expect(redirected.detail).toContain("never followed")
  })

  it("counts what the handler acted on for the duplicate checks", () => {
    const retry = CHECKS.find((c) => c.id === "retry")!
    expect(judge(retry, [{ status: 200, ms: 1 }], 1).verdict).toBe("fail")
    expect(judge(retry, [{ status: 200, ms: 1 }], 0).verdict).toBe("pass")
  })

  it("judges latency: fail past the timeout, warn over 2 s", () => {
    expect(judgeLatency([{ status: 200, ms: 10_500 }]).verdict).toBe("fail")
    expect(judgeLatency([{ status: null, ms: 10_000, timedOut: true }]).verdict).toBe("fail")
    expect(judgeLatency([{ status: 200, ms: 2_500 }]).verdict).toBe("warn")
    expect(judgeLatency([{ status: 200, ms: 20 }]).verdict).toBe("pass")
  })

  it("stops sending after three timeouts and reports the rest as not sent", async () => {
    const report = await run(setup, async (_request, timeoutMs) => ({ status: null, ms: timeoutMs, timedOut: true }), {
      timeoutMs: 5
    })
    expect(report.checks.find((c) => c.id === "retry")!.detail).toMatch(/^not sent/)
    expect(report.checks.at(-1)!.verdict).toBe("fail")
  })
})
