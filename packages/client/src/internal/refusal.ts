// The one way to build a callback refusal, so that every message starts alike.
import type { Environment } from "@pc/core"
import { CallbackVerificationError, type CallbackVerificationErrorReason } from "../CallbackVerificationError.js"

/** A refusal by a verifier of `environment`; the message is prefixed with `callback refused (environment)`. */
export const refusal = (
  environment: Environment.Environment,
  reason: CallbackVerificationErrorReason,
  message: string,
  details: { readonly header?: string; readonly keyVersion?: number; readonly localClockAheadMs?: number } = {}
): CallbackVerificationError =>
  new CallbackVerificationError({
    message: `callback refused (${environment}): ${message}`,
    reason,
    environment,
    header: details.header,
    keyVersion: details.keyVersion,
    localClockAheadMs: details.localClockAheadMs
  })
