// Maps the HttpClient's errors to the client's typed errors, and keeps signatures out of logs and traces.
import * as PlatformHeaders from "@effect/platform/Headers"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import { ConfigurationError, type PaymentClientError, TransportError } from "../PaymentClientError.js"
import type { AttemptFailure } from "./response.js"
import { SigningFailure } from "./signing.js"

const describeCause = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  const inner = (cause as { readonly cause?: unknown }).cause
  const detail =
    inner instanceof Error
      ? `: ${(inner as { readonly code?: unknown }).code ?? ""}${(inner as { readonly code?: unknown }).code ? " " : ""}${inner.message}`
      : ""
  return `${cause.message}${detail}`
}

export const fromHttpClientError = (error: HttpClientError.HttpClientError, baseUrl: string): AttemptFailure => {
  const failure = (e: PaymentClientError): AttemptFailure => ({ error: e, retryAfterMs: undefined })
  if (error._tag === "RequestError") {
    if (error.cause instanceof SigningFailure) {
      return failure(
        new ConfigurationError({
          message: `${error.description ?? "the signer failed"}: ${describeCause(error.cause.cause)}`,
          reason: "BadKey",
          option: "keyRing"
        })
      )
    }
    if (error.reason !== "Transport") {
      return failure(
        new ConfigurationError({
          message: `the request could not be built (${error.reason}): ${error.description ?? describeCause(error.cause)}`,
          reason: "InvalidOption",
          option: error.reason === "InvalidUrl" ? "baseUrl" : undefined
        })
      )
    }
    return failure(
      new TransportError({ message: `could not reach ${baseUrl}: ${describeCause(error.cause)}`, cause: error.cause })
    )
  }
  return failure(
    new TransportError({
      message: `the answer from ${baseUrl} (HTTP ${error.response.status}) could not be read: ${describeCause(error.cause)}`,
      cause: error.cause
    })
  )
}

// Signatures are not secrets, but they are never logged or traced whole either. The extended list
// is made once per list in force (usually the one default), not on every call.
const withSignature = new WeakMap<ReadonlyArray<string | RegExp>, ReadonlyArray<string | RegExp>>()
const redactSignature = (names: ReadonlyArray<string | RegExp>): ReadonlyArray<string | RegExp> => {
  let extended = withSignature.get(names)
  if (extended === undefined) {
    extended = names.includes("x-r-signature") ? names : [...names, "x-r-signature"]
    withSignature.set(names, extended)
  }
  return extended
}
export const withRedactedHeaders = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.locallyWith(effect, PlatformHeaders.currentRedactedNames, redactSignature)
