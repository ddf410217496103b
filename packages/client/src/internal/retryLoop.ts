// The create-order retry loop: one call's attempts, their waits and its deadline, as a function of
// one attempt, so that the rule for what is retried and for how long lives in one place.
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Random from "effect/Random"
import { isRetryable, type PaymentClientError, Timeout, TransportError } from "../PaymentClientError.js"
import type { Settings } from "./clientOptions.js"
import type { AttemptFailure } from "./response.js"
import { backoffDelay } from "./retry.js"

/**
 * How long one attempt may take (`timeoutMs`), and whether that bound is the per-attempt timeout
 * (`"attempt"`) or what is left of the call's deadline (`"deadline"`), for the `Timeout` it fails with.
 */
export type Attempt<A> = (timeoutMs: number, scope: "attempt" | "deadline") => Effect.Effect<A, AttemptFailure>

/**
 * Runs `attempt` until it succeeds, fails with an error that is not retried, uses up
 * `settings.maxAttempts`, or would wait past `deadlineMs` (counted from the first attempt).
 *
 * Our own loop rather than `HttpClient.retryTransient`: the decision rests on the decoded
 * envelope's code (a 500 carrying paramError must not be retried, a 200 carrying signError is an
 * error), the wait must honour Retry-After, and the whole call has a deadline. Each pass calls
 * `client.execute` inside `attempt`, which re-runs the signing mapper: a fresh timestamp and signature.
 */
export const withRetries = <A>(
  settings: Pick<Settings, "timeoutMs" | "maxAttempts" | "baseDelayMs" | "maxDelayMs" | "jitter">,
  deadlineMs: number,
  attempt: Attempt<A>
): Effect.Effect<A, PaymentClientError> =>
  Effect.gen(function* () {
    const startedAt = yield* Clock.currentTimeMillis
    let attempts = 0
    // A merchant deciding what to do next (retry later, show an error) needs to know how much
    // of the budget went: the transport errors say how many attempts and how long.
    const giveUp = (error: PaymentClientError, nowMs: number) =>
      Effect.fail(
        error._tag === "TransportError"
          ? new TransportError({
              message: error.message,
              cause: error.cause,
              attempts,
              elapsedMs: nowMs - startedAt
            })
          : error._tag === "Timeout"
            ? new Timeout({
                message: error.message,
                scope: error.scope,
                timeout: error.timeout,
                attempts,
                elapsedMs: nowMs - startedAt
              })
            : error
      )
    while (true) {
      const remaining = deadlineMs - ((yield* Clock.currentTimeMillis) - startedAt)
      const budget = Math.min(settings.timeoutMs, remaining)
      const result = yield* Effect.either(attempt(budget, budget < settings.timeoutMs ? "deadline" : "attempt"))
      if (Either.isRight(result)) return result.right
      attempts++
      const { error, retryAfterMs } = result.left
      // signError, paramError and duplicateOrder would fail the same way again: never retried.
      if (!isRetryable(error) || attempts >= settings.maxAttempts) {
        return yield* giveUp(error, yield* Clock.currentTimeMillis)
      }
      const backoff = backoffDelay(settings, attempts, yield* Random.next)
      // The server knows best when it can take the request again: wait at least Retry-After.
      const delay = Math.max(backoff, retryAfterMs ?? 0)
      const elapsed = (yield* Clock.currentTimeMillis) - startedAt
      // A wait that ends past the deadline cannot lead to a success in time: fail now, with the real cause.
      if (elapsed + delay >= deadlineMs) return yield* giveUp(error, startedAt + elapsed)
      yield* Effect.logDebug(`createOrder attempt ${attempts} failed (${error._tag}); retrying in ${delay} ms`)
      yield* Effect.sleep(Duration.millis(delay))
    }
  })
