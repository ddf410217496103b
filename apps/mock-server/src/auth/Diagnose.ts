// Why did a signature fail? Tries the usual integration mistakes against the merchant's own keys so
// the log (and the sandbox integrator) learns the likely cause, not only "invalid". Only runs on
// the failure path, after the cheap checks, so its extra verifications cost nothing on valid
// requests. It is a help, reachable without a valid signature, so its work is bounded whatever the
// input: a few verifications of about the body's size, and re-serialisation only for small, shallow
// bodies (pretty-printing a body nested thousands deep took seconds and a gigabyte).
import { Base64, Canonical, type Crypto, Headers, Timestamp } from "@pc/core"
import { Effect } from "effect"
import { checkJsonDepth } from "../http/JsonDepth.js"

export interface DiagnoseInput {
  readonly method: string
  readonly path: string
  readonly headers: Headers.HeaderSource
  readonly body: string
}

interface VersionedVerifier {
  readonly version: number
  readonly verifier: Crypto.Verifier
}

/** Bodies larger than this are not re-serialised: pretty-printing multiplies their size. */
export const MAX_RESERIALISED_BYTES = 8 * 1024
/** Keys tried for a wrong key version, newest first: a merchant may have uploaded many. */
const MAX_KEYS_TRIED = 8

const reserialisations = (body: string): ReadonlyArray<readonly [string, string]> => {
  // Both bounds before JSON.parse: indentation grows with depth times size, so only a small body
  // within the depth limit is worth the guess.
  if (body.length > MAX_RESERIALISED_BYTES || !checkJsonDepth(body).ok) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return []
  }
  const variants: Array<readonly [string, string]> = [
    [
      JSON.stringify(parsed),
      "the body was re-serialised after signing: the signed text was compact JSON, the bytes sent differ"
    ],
    [JSON.stringify(parsed, null, 2), "the body signed was pretty-printed JSON, but compact JSON was sent"],
    [JSON.stringify(parsed, null, 4), "the body signed was pretty-printed JSON, but compact JSON was sent"]
  ]
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
    const sorted = Object.fromEntries(Object.entries(parsed).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    variants.push([JSON.stringify(sorted), "the body signed had its fields in another order than the body sent"])
  }
  return variants.filter(([text]) => text !== body)
}

/** The likely cause of a failed signature check, or `undefined` when none of the usual mistakes fits. */
export const diagnose = <E, R>(
  input: DiagnoseInput,
  nowMs: number,
  keysOf: (appKey: string) => Effect.Effect<ReadonlyArray<VersionedVerifier>, E, R>
): Effect.Effect<string | undefined, E, R> =>
  Effect.gen(function* () {
    const rawSignature = Headers.get(input.headers, Headers.RequestHeaders.signature)
    const appKey = Headers.get(input.headers, Headers.RequestHeaders.appKey)
    const tsText = Headers.get(input.headers, Headers.RequestHeaders.timestamp)
    const versionText = Headers.get(input.headers, Headers.RequestHeaders.keyVersion)
    if (rawSignature === undefined) return "no X-R-Signature header was sent"
    const decoded = Base64.decode(rawSignature)
    if (!decoded.ok) return `X-R-Signature is not raw standard Base64: ${decoded.error.message}`
    const timestamp = tsText === undefined ? undefined : Timestamp.parse(tsText)
    if (timestamp !== undefined) {
      if (tsText!.length <= 10 && Math.abs(timestamp * 1000 - nowMs) <= Timestamp.WINDOW_MS) {
        return "X-R-TS looks like seconds; send Unix epoch milliseconds"
      }
      const window = Timestamp.checkWindow(timestamp, nowMs)
      if (!window.ok) return `clock skew of ${Math.round(window.skewMs / 1000)} seconds (${window.message})`
    }
    if (appKey === undefined || tsText === undefined) return undefined
    const all = yield* keysOf(appKey)
    const keys = [...all].sort((a, b) => b.version - a.version).slice(0, MAX_KEYS_TRIED)
    const signature = decoded.bytes
    const verifies = (text: string, verifier: Crypto.Verifier) => Effect.promise(() => verifier.verify(text, signature))
    const exact = Canonical.requestStringToSign({ ...input, appKey, timestamp: tsText })
    for (const key of keys) {
      if (String(key.version) !== versionText && (yield* verifies(exact, key.verifier))) {
        return `wrong key version: signed with key version ${key.version}, but X-R-KEY-VERSION says ${versionText ?? "nothing"}`
      }
    }
    const claimed = all.find((key) => String(key.version) === versionText)
    if (claimed === undefined) return undefined
    for (const [body, cause] of reserialisations(input.body)) {
      if (
        yield* verifies(Canonical.requestStringToSign({ ...input, appKey, timestamp: tsText, body }), claimed.verifier)
      ) {
        return cause
      }
    }
    const alternatives: ReadonlyArray<readonly [string, string]> = [
      [
        Canonical.requestStringToSign({ ...input, method: input.method.toLowerCase(), appKey, timestamp: tsText }),
        "the method was signed in lower case; sign it upper case (POST)"
      ],
      [
        Canonical.callbackStringToSign({ appKey, timestamp: tsText, body: input.body }),
        "the callback form was signed (no method and path); requests sign METHOD path\\nappKey.timestamp.body"
      ]
    ]
    for (const [text, cause] of alternatives) if (yield* verifies(text, claimed.verifier)) return cause
    return "the signature was made with another key, or over other bytes than those sent"
  })
