// Why did a signature fail? Tries the usual integration mistakes against the merchant's own keys so
// the log (and the sandbox integrator) learns the likely cause, not only "invalid". Only runs on
// the failure path, after the cheap checks, so its extra verifications cost nothing on valid
// requests. It is a help, reachable without a valid signature, so its work is bounded whatever the
// input: a few verifications of about the body's size, and re-serialisation only for small, shallow
// bodies (pretty-printing a body nested thousands deep took seconds and a gigabyte).
import { Base64, Canonical, type Crypto, Headers, Timestamp } from "@pc/core"
import * as Step from "../Step.js"
import { checkJsonDepth } from "../JsonDepth.js"

export interface DiagnoseInput {
  readonly method: string
  readonly path: string
  readonly headers: Headers.HeaderSource
  readonly body: string
}

export interface VersionedVerifier {
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

/** What the headers alone could not settle: the likely cause needs the merchant's keys. */
interface NeedsKeys {
  readonly appKey: string
  readonly tsText: string
  readonly versionText: string | undefined
  readonly signature: Uint8Array
}

/**
 * The causes the headers show (no signature, not Base64, seconds, clock skew): a string, or
 * `undefined` when nothing can be said; what the keys must settle otherwise. No verification.
 */
const causeFromHeaders = (input: DiagnoseInput, nowMs: number): string | undefined | NeedsKeys => {
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
  return { appKey, tsText, versionText, signature: decoded.bytes }
}

/** The usual mistakes tried against the merchant's keys, one verification at a time. */
const causeFromKeys = async (
  input: DiagnoseInput,
  { appKey, tsText, versionText, signature }: NeedsKeys,
  all: ReadonlyArray<VersionedVerifier>
): Promise<string | undefined> => {
  const keys = [...all].sort((a, b) => b.version - a.version).slice(0, MAX_KEYS_TRIED)
  const exact = Canonical.requestStringToSign({ ...input, appKey, timestamp: tsText })
  for (const key of keys) {
    if (String(key.version) !== versionText && (await key.verifier.verify(exact, signature))) {
      return `wrong key version: signed with key version ${key.version}, but X-R-KEY-VERSION says ${versionText ?? "nothing"}`
    }
  }
  const claimed = all.find((key) => String(key.version) === versionText)
  if (claimed === undefined) return undefined
  for (const [body, cause] of reserialisations(input.body)) {
    const text = Canonical.requestStringToSign({ ...input, appKey, timestamp: tsText, body })
    if (await claimed.verifier.verify(text, signature)) return cause
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
  for (const [text, cause] of alternatives) if (await claimed.verifier.verify(text, signature)) return cause
  return "the signature was made with another key, or over other bytes than those sent"
}

/**
 * The likely cause of a failed signature check, or `undefined` when none of the usual mistakes
 * fits. A step (domain/Step.ts), never a fiber of its own: plain when the headers show the cause or
 * `keysOf` has no keys to try (a flood of refusals, once the diagnosis budget is spent), a Promise
 * while the keys are tried, an Effect only when `keysOf` must read them.
 *
 * @example
 * ```ts
 * const likely = await Effect.runPromise(Step.toEffect(diagnose(input, Date.now(), () => [{ version: 1, verifier }])))
 * ```
 */
export const diagnose = <E>(
  input: DiagnoseInput,
  nowMs: number,
  keysOf: (appKey: string) => Step.Step<ReadonlyArray<VersionedVerifier>, E>
): Step.Step<string | undefined, E> => {
  const fromHeaders = causeFromHeaders(input, nowMs)
  if (fromHeaders === undefined || typeof fromHeaders === "string") return fromHeaders
  return Step.andThen(keysOf(fromHeaders.appKey), (keys) =>
    keys.length === 0 ? undefined : causeFromKeys(input, fromHeaders, keys)
  )
}
