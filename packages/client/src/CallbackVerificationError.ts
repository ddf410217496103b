/**
 * The error of a refused callback, shared by the verifier (`Callback`) and the HTTP adapters
 * (`CallbackHandler`); `Callback` re-exports it, so `Callback.CallbackVerificationError` is the
 * public name.
 *
 * @since 0.1.0
 */
import type { Environment } from "@pc/core"
import * as Data from "effect/Data"

/**
 * Why a callback was refused. Each has its own reason so that logs and alerts can tell a forged
 * request from a misconfiguration:
 * - `MissingHeader`, `MalformedHeader`: `X-R-Ts`, `X-R-Key-Version` or `X-R-Signature` absent,
 *   sent twice, or not of their form.
 * - `UnknownKeyVersion`: no platform key of this environment has that version (a rotation you have
 *   not added yet, or a forged header).
 * - `WrongEnvironment`: signed with another environment's platform key (a sandbox callback at a
 *   production endpoint). Only detectable when the ring holds that environment's keys too.
 * - `BadSignature`: the signature does not verify: usually a body that was parsed and re-serialised.
 * - `StaleTimestamp`: `X-R-Ts` outside +-5 minutes of this machine's clock.
 * - `Replayed`: the replay guard has seen this delivery before.
 * - `MalformedBody`: signed correctly, but not a callback event (including an `eventType` other
 *   than `order.paid`, `order.failed`, `order.expired`).
 * - `BodyAlreadyParsed`, `BodyUnreadable`, `BodyTooLarge`: the raw body is not available.
 * - `ReplayGuardFailed`: the replay guard failed or is full; the callback is refused (fail closed).
 * - `PlatformKeySourceFailed`: the platform key source could not look the key version up (answered
 *   500, so the service delivers the callback again later).
 *
 * @example
 * ```ts
 * import type { Callback } from "@pc/client"
 *
 * const reason: Callback.CallbackVerificationErrorReason = "BadSignature"
 * ```
 */
export type CallbackVerificationErrorReason =
  | "MissingHeader"
  | "MalformedHeader"
  | "UnknownKeyVersion"
  | "WrongEnvironment"
  | "BadSignature"
  | "StaleTimestamp"
  | "Replayed"
  | "MalformedBody"
  | "BodyAlreadyParsed"
  | "BodyUnreadable"
  | "BodyTooLarge"
  | "ReplayGuardFailed"
  | "PlatformKeySourceFailed"

/**
 * A refused callback: one class with a `reason` literal (see {@link CallbackVerificationErrorReason}),
 * whose message names the usual mistake behind it.
 *
 * @example
 * ```ts
 * import { CallbackHandler } from "@pc/client"
 * import { Effect } from "effect"
 *
 * CallbackHandler.verifyRequest(request).pipe(
 *   Effect.catchTag("CallbackVerificationError", (e) => Effect.logWarning(e.reason, e.message))
 * )
 * ```
 */
export class CallbackVerificationError extends Data.TaggedError("CallbackVerificationError")<{
  readonly message: string
  readonly reason: CallbackVerificationErrorReason
  /** The environment the verifier checks. */
  readonly environment: Environment.Environment
  /** The header at fault, for header reasons. */
  readonly header: string | undefined
  /** `X-R-Key-Version`, once read. */
  readonly keyVersion: number | undefined
  /**
   * For `StaleTimestamp`: `local now - X-R-Ts` in milliseconds. Positive when the timestamp is in
   * the past (an old or replayed delivery, or this machine's clock runs ahead), negative when it is
   * in the future. The same convention as `SignatureRejected.localClockAheadMs`.
   */
  readonly localClockAheadMs: number | undefined
}> {}
