/**
 * The full check of a merchant request (spec 5): headers, timestamp window, key version (ordinal of
 * the merchant's uploads, disabled versions refused) and the signature over the exact raw body.
 * Production and gray refuse what fails; sandbox only says what production would have decided, and
 * both log the likely cause of a bad signature.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Canonical, Environment, Headers, Timestamp } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import { MockConfig } from "../../config/Config.js"
import type { SignatureNote } from "../../events/MockEvents.js"
import { type ApiError, signError } from "../ApiError.js"
import * as Step from "../Step.js"
import type { AuthKeys } from "../../store/MerchantStore.js"
import { Store } from "../../store/Store.js"
import { isSqlError } from "../../store/StoreError.js"
import { capped } from "../../log/LogText.js"
import { loggerOf } from "../../log/RequestLog.js"
import { diagnose, type VersionedVerifier } from "./Diagnose.js"

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
  /**
   * Other requests are waiting for the event loop: the signature is verified on libuv's thread
   * pool (NodeVerifier.verifyOnThreadPool), so that the loop serves them meanwhile.
   */
  readonly busy?: boolean
  /** The request's id, for the warning logged when its signature is refused. */
  readonly requestId?: string | undefined
}

/** A request whose signature check passed (in sandbox: whose X-R-AK names a known merchant). */
export interface Authenticated {
  readonly ok: true
  /** The merchant's appKey as stored (lower case), whatever the case of X-R-AK. */
  readonly appKey: string
  /** Set in sandbox: production's verdict, for the `X-R-Signature-Check` header. */
  readonly signatureCheck: SignatureCheck | undefined
  /** What production decided, for the request's `request` event. */
  readonly note: SignatureNote
}

/** A request refused by the signature check. */
export interface Refused {
  readonly ok: false
  /** The signError to answer with (in sandbox with its `X-R-Signature-Check` header). */
  readonly error: ApiError
  /** What was decided and, for a signature that does not match, its likely cause. */
  readonly note: SignatureNote
}

/** How a request's authentication ended: a refusal is an answer, not a failure. */
export type AuthResult = Authenticated | Refused

/** The stored form of an appKey: UUIDs compare case-insensitively and the mock stores them lower case. */
const storedAppKey = (appKey: string): string => appKey.toLowerCase()

const SIGNATURE_MISMATCH = "the signature does not match the request"

type Verdict =
  | { readonly ok: true; readonly appKey: string }
  | { readonly ok: false; readonly appKey: string | undefined; readonly missing: boolean; readonly cause: string }

const refused = (error: ApiError, likelyCause: string | null): Refused => ({
  ok: false,
  error,
  note: { verdict: "refused", cause: error.msg, likelyCause }
})

export const make: Effect.Effect<MerchantAuthService, never, MockConfig | Store> = Effect.gen(function* () {
  const config = yield* MockConfig
  const store = yield* Store
  // The loggers of the runtime the mock runs: a refusal's warning is written without a fiber.
  const log = loggerOf((yield* Effect.runtime<never>()).fiberRefs)
  // Uploaded keys never change (a version's PEM is fixed; only its status moves, and that is read
  // with the merchant's keys on every request), so each (appKey, version) is parsed once and kept.
  // Once the import has resolved, the verifier itself is kept, so a request pays no wait for it.
  const verifiers = new Map<string, NodeCrypto.NodeVerifier | Promise<NodeCrypto.NodeVerifier>>()

  const verifierOf = (
    appKey: string,
    version: number,
    pem: string
  ): NodeCrypto.NodeVerifier | Promise<NodeCrypto.NodeVerifier> => {
    const id = `${appKey}\u0000${version}`
    const known = verifiers.get(id)
    if (known !== undefined) return known
    const importing = NodeCrypto.importPublicKey(pem).then(
      (verifier) => {
        verifiers.set(id, verifier)
        return verifier
      },
      (error: unknown) => {
        // Not kept: the next request tries again rather than meeting the same rejection for good.
        verifiers.delete(id)
        throw error
      }
    )
    verifiers.set(id, importing)
    return importing
  }

  /**
   * The merchant's keys, without a fiber step where the store can give them so: cached, or on a
   * shared database the read that the requests arriving together share (a Promise); a fiber only
   * to read them into the cache.
   */
  const keysOf = (appKey: string): Step.Step<AuthKeys | null, SqlError> => {
    const now = store.authKeysNow(appKey)
    if (now === undefined) return store.authKeys(appKey)
    return now instanceof Promise ? Step.fromPromise(now, isSqlError) : now
  }

  /** Production's decision on the signature of a request with these parsed headers, given the merchant's keys. */
  const decide = (
    input: AuthInput,
    nowMs: number,
    headers: Headers.RequestAuthHeaders,
    keys: AuthKeys | null
  ): Verdict | Promise<Verdict> => {
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
    const text = Canonical.requestStringToSign({
      method: input.method,
      path: input.path,
      appKey: sentAppKey,
      timestamp,
      body: input.body
    })
    const verdictOf = (valid: boolean): Verdict =>
      valid ? { ok: true, appKey } : { ok: false, appKey, missing: false, cause: SIGNATURE_MISMATCH }
    // A request alone is verified here and now: the create goes on without waiting for a Promise.
    const verify = (verifier: NodeCrypto.NodeVerifier): Verdict | Promise<Verdict> =>
      input.busy === true
        ? verifier.verifyOnThreadPool(text, signature).then(verdictOf)
        : verdictOf(verifier.verifyNow(text, signature))
    const verifier = verifierOf(appKey, keyVersion, key.publicKeyPem)
    return verifier instanceof Promise ? verifier.then(verify) : verify(verifier)
  }

  /**
   * Production's decision on a request, whatever the environment. No fiber step on the common
   * path: the merchant's keys come from the store's cache when it has them, and a request alone
   * is verified at once; only one verified on the thread pool (`busy`) waits for a Promise.
   */
  const judge = (input: AuthInput, nowMs: number): Step.Step<Verdict, SqlError> => {
    const required = Environment.requiresSignature(
      config.environment === "sandbox" ? "production" : config.environment,
      input.body.length > 0
    )
    const parsed = Headers.parseRequest(input.headers, { signature: required ? "required" : "optional" })
    if (!parsed.ok) {
      const appKey = Headers.get(input.headers, Headers.RequestHeaders.appKey)
      const missing = parsed.error.header === Headers.RequestHeaders.signature && parsed.error.reason === "Missing"
      return { ok: false, appKey, missing, cause: parsed.error.message }
    }
    return Step.andThen(keysOf(storedAppKey(parsed.headers.appKey)), (keys) =>
      decide(input, nowMs, parsed.headers, keys)
    )
  }

  // Diagnosis tries a few more verifications per refusal and is reachable without a valid
  // signature: a flood of bad signatures must not slow the merchants who sign correctly. So at most
  // this many refusals per second get those verifications. The causes read off the headers alone
  // (no signature, not Base64, seconds, clock skew) cost none and are always given, and a refusal
  // for an appKey with no keys spends nothing: a flood of made-up appKeys cannot take the diagnosis
  // from merchants.
  let diagnoses = { second: Number.NaN, count: 0 }
  const mayDiagnose = (nowMs: number): boolean => {
    const second = Math.floor(nowMs / 1000)
    if (second !== diagnoses.second) diagnoses = { second, count: 0 }
    return ++diagnoses.count <= DIAGNOSES_PER_SECOND
  }

  /**
   * The merchant's keys with their verifiers, for diagnosis (from the cache, like authentication's),
   * when `mayTry` allows: it is asked only for a merchant that has keys, before any verifier is made.
   */
  const verifiersOf = (
    sentAppKey: string,
    mayTry: () => boolean
  ): Step.Step<ReadonlyArray<VersionedVerifier>, SqlError> => {
    if (!Headers.isAppKey(sentAppKey)) return []
    const appKey = storedAppKey(sentAppKey)
    const withKeys = (keys: AuthKeys | null): Step.Step<ReadonlyArray<VersionedVerifier>> => {
      if (keys === null || keys.size === 0 || !mayTry()) return []
      const found = Array.from(keys, ([version, key]) => {
        const verifier = verifierOf(appKey, version, key.publicKeyPem)
        return verifier instanceof Promise
          ? verifier.then((ready) => ({ version, verifier: ready }))
          : { version, verifier }
      })
      return found.some((entry) => entry instanceof Promise) ? Promise.all(found) : (found as Array<VersionedVerifier>)
    }
    return Step.andThen(keysOf(appKey), withKeys)
  }

  /**
   * Logs the likely cause of a refused signature, without the signature or any key, and returns it
   * (capped) for the request's event; `null` when none was worked out or the second's diagnoses
   * are spent. A step without a fiber unless the merchant's keys must be read: a flood of bad
   * signatures is refused at the cost of a valid request, not of a fiber each.
   */
  const explain = (
    input: AuthInput,
    verdict: Verdict & { readonly ok: false },
    nowMs: number
  ): Step.Step<string | null> => {
    // The budget is spent only where diagnosis would verify: when the merchant has keys to try.
    let diagnosed = true
    const withinBudget = () => {
      diagnosed = mayDiagnose(nowMs)
      return diagnosed
    }
    const logged = (likely: string | undefined): string | null => {
      log(LogLevel.Warning, "signature check failed", {
        ...(input.requestId === undefined ? {} : { requestId: input.requestId }),
        environment: config.environment,
        // Header values reach these texts: capped, so a 15 KB header is not a 15 KB log line.
        appKey: capped(verdict.appKey ?? "unknown"),
        cause: capped(verdict.cause),
        likelyCause: capped(
          likely ?? (diagnosed ? "not determined" : `not determined (over ${DIAGNOSES_PER_SECOND} refusals a second)`)
        )
      })
      return likely === undefined ? null : capped(likely)
    }
    // A diagnosis that fails (a storage error, a key that no longer imports) leaves the cause open.
    return Step.matchAll(
      diagnose(input, nowMs, (appKey) => verifiersOf(appKey, withinBudget)),
      logged,
      () => logged(undefined)
    )
  }

  /**
   * Authenticates a request at `nowMs`. In production and gray a failed check is Refused with a
   * signError; in sandbox the request is Authenticated whenever X-R-AK names a known merchant, with
   * production's verdict beside it. Fails only with a storage SqlError.
   */
  const authenticate = (input: AuthInput, nowMs: number): Step.Step<AuthResult, SqlError> =>
    Step.andThen(judge(input, nowMs), (verdict): Step.Step<AuthResult, SqlError> => {
      if (config.environment === "sandbox") return inSandbox(input, verdict, nowMs)
      if (verdict.ok) {
        return { ok: true, appKey: verdict.appKey, signatureCheck: undefined, note: VALID }
      }
      return Step.andThen(explain(input, verdict, nowMs), (likely) => refused(signError(verdict.cause), likely))
    })

  /**
   * Sandbox: X-R-AK must name a known merchant; nothing else is enforced. Even that refusal says
   * what production would have decided of the signature.
   */
  const inSandbox = (input: AuthInput, verdict: Verdict, nowMs: number): Step.Step<AuthResult, SqlError> => {
    const check: SignatureCheck = verdict.ok ? "valid" : verdict.missing ? "missing" : "invalid"
    const checkHeader = signatureCheckHeader(check)
    const refuse = (cause: string): Refused => refused(signError(cause, checkHeader), null)
    const sentAppKey = Headers.get(input.headers, Headers.RequestHeaders.appKey)
    if (sentAppKey === undefined) return refuse(`missing header ${Headers.RequestHeaders.appKey}`)
    // Only a UUID is looked up: X-R-AK can be kilobytes of anything.
    if (!Headers.isAppKey(sentAppKey))
      return refuse(`malformed header ${Headers.RequestHeaders.appKey}: the appKey is a UUID`)
    const appKey = storedAppKey(sentAppKey)
    const exists = Step.andThen(keysOf(appKey), (keys) => keys !== null)
    return Step.andThen(exists, (known): Step.Step<AuthResult, SqlError> => {
      if (!known) return refuse(`unknown appKey ${sentAppKey}`)
      if (verdict.ok || verdict.missing) {
        return { ok: true, appKey, signatureCheck: check, note: { verdict: check, cause: null, likelyCause: null } }
      }
      return Step.andThen(
        explain(input, verdict, nowMs),
        (likely): Authenticated => ({
          ok: true,
          appKey,
          signatureCheck: "invalid",
          note: { verdict: "invalid", cause: capped(verdict.cause), likelyCause: likely }
        })
      )
    })
  }

  return { authenticate }
})

const VALID: SignatureNote = { verdict: "valid", cause: null, likelyCause: null }

/** Refused signatures diagnosed per second, at most (see `mayDiagnose`). */
export const DIAGNOSES_PER_SECOND = 20

/** Authentication of merchant requests (spec 5), on the store in context. */
export interface MerchantAuthService {
  /**
   * Authenticates a request at `nowMs`: Authenticated, or Refused with the signError to answer.
   * A step (domain/Step.ts): plain or a Promise when the merchant's keys are cached, an Effect when
   * they must be read.
   */
  readonly authenticate: (input: AuthInput, nowMs: number) => Step.Step<AuthResult, SqlError>
}

/** The {@link MerchantAuthService} in context. */
export class MerchantAuth extends Context.Tag("@pc/mock-server/MerchantAuth")<MerchantAuth, MerchantAuthService>() {
  /**
   * The service, made from what the caller's context holds:
   * main/Server.ts makes the mock's services one after another in one layer.
   *
   * @example
   * ```ts
   * const merchantAuth = yield* Effect.provide(MerchantAuth.make, context)
   * ```
   */
  static readonly make = make
  static readonly layer = Layer.effect(MerchantAuth, make)
}
