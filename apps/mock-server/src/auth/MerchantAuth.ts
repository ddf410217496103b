/**
 * The full check of a merchant request (spec 5): headers, timestamp window, key version (ordinal of
 * the merchant's uploads, disabled versions refused) and the signature over the exact raw body.
 * Production and gray refuse what fails; sandbox only says what production would have decided, and
 * both log the likely cause of a bad signature.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Canonical, type Crypto, Environment, Headers, Timestamp } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { Clock, Context, Effect, FiberRef, Layer, Option } from "effect"
import { MockConfig } from "../Config.js"
import { signatureNote } from "../events/MockEvents.js"
import { type ApiError, signError } from "../http/Envelope.js"
import type { AuthKeys } from "../store/MerchantStore.js"
import { Store } from "../store/Store.js"
import { capped } from "../log/LogText.js"
import { diagnose } from "./Diagnose.js"

/** What the sandbox tells the integrator in `X-R-Signature-Check`. */
export type SignatureCheck = "valid" | "invalid" | "missing"

/**
 * The response header that carries a sandbox's {@link SignatureCheck}, built in one place.
 *
 * @example
 * ```ts
 * signatureCheckHeader("invalid") // { "x-r-signature-check": "invalid" }
 * ```
 */
export const signatureCheckHeader = (check: SignatureCheck): Readonly<Record<string, string>> => ({
  [Headers.SIGNATURE_CHECK.toLowerCase()]: check
})

export interface AuthInput {
  readonly method: string
  readonly path: string
  readonly headers: Headers.HeaderSource
  /** The body text exactly as received. */
  readonly body: string
}

export interface Authenticated {
  /** The merchant's appKey as stored (lower case), whatever the case of X-R-AK. */
  readonly appKey: string
  /** Set in sandbox: production's verdict, for the `X-R-Signature-Check` header. */
  readonly signatureCheck: SignatureCheck | undefined
}

/** The stored form of an appKey: UUIDs compare case-insensitively and the mock stores them lower case. */
const storedAppKey = (appKey: string): string => appKey.toLowerCase()

const SIGNATURE_MISMATCH = "the signature does not match the request"

type Verdict =
  | { readonly ok: true; readonly appKey: string }
  | { readonly ok: false; readonly appKey: string | undefined; readonly missing: boolean; readonly cause: string }

export const make = Effect.gen(function* () {
  const config = yield* MockConfig
  const store = yield* Store
  // Uploaded keys never change (a version's PEM is fixed; only its status moves, and that is read
  // with the merchant's keys on every request), so each (appKey, version) is parsed once and kept.
  // Once the import has resolved, the verifier itself is kept, so a request pays no wait for it.
  const verifiers = new Map<string, Crypto.Verifier | Promise<Crypto.Verifier>>()

  const verifierOf = (appKey: string, version: number, pem: string): Effect.Effect<Crypto.Verifier> => {
    const id = `${appKey}\u0000${version}`
    const known = verifiers.get(id)
    if (known !== undefined && !(known instanceof Promise)) return Effect.succeed(known)
    const importing =
      known ??
      NodeCrypto.importPublicKey(pem).then((verifier) => {
        verifiers.set(id, verifier)
        return verifier
      })
    verifiers.set(id, importing)
    return Effect.promise(() => importing)
  }

  /** Production's decision on the signature of a request with these parsed headers, given the merchant's keys. */
  const decide = (
    input: AuthInput,
    nowMs: number,
    headers: Headers.RequestAuthHeaders,
    keys: AuthKeys | null
  ): Verdict | Effect.Effect<Verdict> => {
    // The string to sign has X-R-AK as sent (spec 5.3: the appKey the merchant sends); the
    // merchant is found by its stored, lower-case form.
    const { appKey: sentAppKey, timestamp, keyVersion, signature } = headers
    const appKey = storedAppKey(sentAppKey)
    if (keys === null) return { ok: false, appKey: undefined, missing: false, cause: `unknown appKey ${sentAppKey}` }
    const window = Timestamp.checkWindow(timestamp, nowMs)
    if (!window.ok) {
      return { ok: false, appKey, missing: false, cause: `timestamp outside the 5 minute window (${window.message})` }
    }
    const key = keys.get(keyVersion)
    if (key === undefined) {
      return { ok: false, appKey, missing: false, cause: `key version ${keyVersion} is unknown for this appKey` }
    }
    if (key.status === "disabled") {
      return { ok: false, appKey, missing: false, cause: `key version ${keyVersion} is disabled` }
    }
    if (signature === undefined) return { ok: true, appKey }
    const text = Canonical.requestStringToSign({ ...input, appKey: sentAppKey, timestamp })
    return Effect.flatMap(verifierOf(appKey, keyVersion, key.publicKeyPem), (verifier) =>
      Effect.promise(
        (): Promise<Verdict> =>
          verifier
            .verify(text, signature)
            .then((valid) =>
              valid ? { ok: true, appKey } : { ok: false, appKey, missing: false, cause: SIGNATURE_MISMATCH }
            )
      )
    )
  }

  /**
   * Production's decision on a request, whatever the environment. Plain steps, not one fiber step
   * each: the merchant's keys come from the store's cache when it has them, and the only wait
   * left on a valid request is the verification.
   */
  const judge = (input: AuthInput, nowMs: number): Effect.Effect<Verdict, SqlError> => {
    const required = Environment.requiresSignature(
      config.environment === "sandbox" ? "production" : config.environment,
      input.body.length > 0
    )
    const parsed = Headers.parseRequest(input.headers, { signature: required ? "required" : "optional" })
    if (!parsed.ok) {
      const appKey = Headers.get(input.headers, Headers.RequestHeaders.appKey)
      const missing = parsed.error.header === Headers.RequestHeaders.signature && parsed.error.reason === "Missing"
      return Effect.succeed({ ok: false, appKey, missing, cause: parsed.error.message })
    }
    return Effect.flatMap(store.authKeys(storedAppKey(parsed.headers.appKey)), (keys) => {
      const verdict = decide(input, nowMs, parsed.headers, keys)
      return Effect.isEffect(verdict) ? verdict : Effect.succeed(verdict)
    })
  }

  /** Logs the likely cause of a refused signature, without the signature or any key. */
  const explain = (input: AuthInput, verdict: Verdict & { readonly ok: false }, nowMs: number) =>
    Effect.gen(function* () {
      const likely = yield* diagnose(input, nowMs, (sentAppKey) => {
        if (!Headers.isAppKey(sentAppKey)) return Effect.succeed([])
        const appKey = storedAppKey(sentAppKey)
        return store.getMerchant(appKey).pipe(
          Effect.flatMap(
            Option.match({
              onNone: () => Effect.succeed([]),
              onSome: (merchant) =>
                Effect.forEach(merchant.keys, (key) =>
                  store.merchantKey(appKey, key.version).pipe(
                    Effect.flatMap(
                      Option.match({
                        onNone: () => Effect.succeed(undefined),
                        onSome: (stored) =>
                          Effect.map(verifierOf(appKey, key.version, stored.publicKeyPem), (verifier) => ({
                            version: key.version,
                            verifier
                          }))
                      })
                    )
                  )
                ).pipe(Effect.map((keys) => keys.filter((k) => k !== undefined)))
            })
          )
        )
      })
      // For the request's `request` event (GET /dev/events, pc logs tail): the create-order handler keeps it.
      yield* FiberRef.set(signatureNote, {
        verdict: "invalid",
        cause: capped(verdict.cause),
        likelyCause: likely === undefined ? null : capped(likely)
      })
      yield* Effect.logWarning("signature check failed").pipe(
        Effect.annotateLogs({
          environment: config.environment,
          // Header values reach these texts: capped, so a 15 KB header is not a 15 KB log line.
          appKey: capped(verdict.appKey ?? "unknown"),
          cause: capped(verdict.cause),
          likelyCause: capped(likely ?? "not determined")
        })
      )
    }).pipe(Effect.catchAllCause(() => Effect.void))

  /**
   * Authenticates a request. Fails with a signError envelope in production and gray; in sandbox
   * succeeds whenever X-R-AK names a known merchant and reports production's verdict.
   */
  const authenticate = (input: AuthInput): Effect.Effect<Authenticated, ApiError | SqlError> =>
    Effect.flatMap(Clock.currentTimeMillis, (nowMs) =>
      Effect.flatMap(judge(input, nowMs), (verdict): Effect.Effect<Authenticated, ApiError | SqlError> => {
        if (config.environment === "sandbox") return inSandbox(input, verdict, nowMs)
        if (verdict.ok) return Effect.succeed({ appKey: verdict.appKey, signatureCheck: undefined })
        return Effect.zipRight(explain(input, verdict, nowMs), Effect.fail(signError(verdict.cause)))
      })
    )

  /**
   * Sandbox: X-R-AK must name a known merchant; nothing else is enforced. Even that refusal says
   * what production would have decided of the signature.
   */
  const inSandbox = (
    input: AuthInput,
    verdict: Verdict,
    nowMs: number
  ): Effect.Effect<Authenticated, ApiError | SqlError> =>
    Effect.gen(function* () {
      const check: SignatureCheck = verdict.ok ? "valid" : verdict.missing ? "missing" : "invalid"
      const checkHeader = signatureCheckHeader(check)
      const sentAppKey = Headers.get(input.headers, Headers.RequestHeaders.appKey)
      if (sentAppKey === undefined) {
        return yield* signError(`missing header ${Headers.RequestHeaders.appKey}`, checkHeader)
      }
      // Only a UUID is looked up: X-R-AK can be kilobytes of anything.
      if (!Headers.isAppKey(sentAppKey)) {
        return yield* signError(`malformed header ${Headers.RequestHeaders.appKey}: the appKey is a UUID`, checkHeader)
      }
      const appKey = storedAppKey(sentAppKey)
      if (!(yield* store.merchantExists(appKey))) return yield* signError(`unknown appKey ${sentAppKey}`, checkHeader)
      if (verdict.ok) return { appKey, signatureCheck: "valid" } satisfies Authenticated
      if (verdict.missing) return { appKey, signatureCheck: "missing" } satisfies Authenticated
      yield* explain(input, verdict, nowMs)
      return { appKey, signatureCheck: "invalid" } satisfies Authenticated
    })

  return { authenticate }
})

export class MerchantAuth extends Context.Tag("mock-server/MerchantAuth")<
  MerchantAuth,
  Effect.Effect.Success<typeof make>
>() {
  static readonly layer = Layer.effect(MerchantAuth, make)
}
