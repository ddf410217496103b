/**
 * How many callback attempts each merchant may have in flight (CONTRACT.md "Callbacks": the
 * dispatcher's capacity is shared fairly, and one merchant's slow endpoint never holds back
 * another's). Every merchant starts at {@link START_IN_FLIGHT_PER_MERCHANT}. One whose endpoint
 * answers fast earns {@link MAX_IN_FLIGHT_PER_MERCHANT}, which its backlog then fills in batches
 * of half of it; a failure, a slow answer, an attempt held on the wire too long, another notify URL
 * or a minute without a fast batch puts it back at the start. Only a few merchants hold the raised
 * limit at a time (`maxFast`), so that endpoints that answered fast and then hang cannot take the
 * whole room. Plain bookkeeping, no I/O: the dispatcher tells it what it sends and what came of
 * it, and asks it for limits.
 */

/**
 * Attempts in flight at most for a merchant whose endpoint is not known to answer fast (a new
 * one, a slow one, one that failed, one whose notify URL changed): a merchant whose endpoint hangs
 * holds this many slots (one that was fast, the {@link MAX_IN_FLIGHT_PER_MERCHANT} it had on the
 * wire, for up to one attempt's time: from a fast answer's time on, it is sent no more), and the
 * others stay free for every other merchant.
 */
export const START_IN_FLIGHT_PER_MERCHANT = 4

/**
 * Attempts in flight at most for a merchant whose endpoint answered its last batch (at least
 * {@link START_IN_FLIGHT_PER_MERCHANT} attempts) 2xx, each within {@link fastAnswerMs}, and holds
 * no attempt longer than that: its backlog goes out all of this at first, then in batches of half
 * of it (one claim, one transaction for their begun attempts, one for their outcomes), one batch
 * signed and begun while the other is on the wire. An endpoint that answers one request at a
 * time at that speed still answers all of them within half an attempt's time. Why 64 and not
 * fewer: bench/RESULTS.md, "Mock server: figures behind its comments".
 */
export const MAX_IN_FLIGHT_PER_MERCHANT = 64

/**
 * The slowest answer (ms) that counts as fast: 100 ms, or less when an attempt's time
 * (`callbackTimeoutMs`) is so short that {@link MAX_IN_FLIGHT_PER_MERCHANT} answers one at a time
 * would not fit in half of it.
 *
 * @example
 * ```ts
 * fastAnswerMs(60_000) // 100
 * fastAnswerMs(10_000) // 78.125
 * ```
 */
export const fastAnswerMs = (callbackTimeoutMs: number): number =>
  Math.min(100, callbackTimeoutMs / (2 * MAX_IN_FLIGHT_PER_MERCHANT))

/** How long (ms) a merchant stays fast without a fast batch: its endpoint may have changed since. */
export const FAST_FOR_MS = 60_000

/** What an ended attempt says of its endpoint. */
export interface AnsweredAttempt {
  readonly deliveryId: string
  readonly appKey: string
  /** Where it was sent. */
  readonly url: string
  /** Answered 2xx. */
  readonly delivered: boolean
  /** From sending to the answer (or the error). */
  readonly durationMs: number
}

/** The bookkeeping of {@link makeEndpointSpeeds}. */
export interface EndpointSpeeds {
  /** How many attempts the merchant may have in flight at `nowMs`. */
  readonly limitOf: (appKey: string, nowMs: number) => number
  /** How many of a busy merchant's slots are claimed together: all of the start limit, else half. */
  readonly batchOf: (appKey: string, nowMs: number) => number
  /** The merchants whose limit is not the start limit, with theirs (at most `maxFast` of them). */
  readonly limits: (nowMs: number) => ReadonlyMap<string, number>
  /** An attempt went on the wire, to `url`; another URL than the one found fast starts the merchant over. */
  readonly sent: (deliveryId: string, appKey: string, url: string, nowMs: number) => void
  /** An attempt left the wire without an outcome to learn from (cut off by a stop). */
  readonly dropped: (deliveryId: string) => void
  /**
   * Learns from a batch of ended attempts: a failure or a slow answer makes its merchant slow; at
   * least a start limit's worth of quick 2xx answers, and nothing slower, make it fast (an
   * answer to an attempt sent before its merchant was last found slow counts for nothing).
   */
  readonly learn: (batch: ReadonlyArray<AnsweredAttempt>, nowMs: number) => void
  /** The merchant's endpoint changed (a new notify URL): it starts at the start limit again. */
  readonly forget: (appKey: string) => void
}

/**
 * The speeds of merchants' endpoints, for answers within `fastMs` (see {@link fastAnswerMs}); at
 * most `maxFast` merchants are fast at a time, the least recently answered dropped first.
 *
 * @example
 * ```ts
 * const speeds = makeEndpointSpeeds({ fastMs: fastAnswerMs(10_000), maxFast: 2 })
 * speeds.sent("dlv_1", appKey, url, now)
 * speeds.learn([{ deliveryId: "dlv_1", appKey, url, delivered: true, durationMs: 3 }], now + 3)
 * speeds.limitOf(appKey, now + 3) // 4: one answer is not a batch's worth
 * ```
 */
export const makeEndpointSpeeds = (options: { readonly fastMs: number; readonly maxFast: number }): EndpointSpeeds => {
  /** Fast merchants, with their endpoint and when it last answered a batch fast; least recently first. */
  const fast = new Map<string, { readonly url: string; readonly sinceMs: number }>()
  /** Attempts on the wire: whose, since when. */
  const onTheWire = new Map<string, { readonly appKey: string; readonly sentMs: number }>()
  /** Attempts on the wire when their merchant was found slow: their answers count for nothing. */
  const withoutVerdict = new Set<string>()

  const slow = (appKey: string) => {
    fast.delete(appKey)
    for (const [id, sent] of onTheWire) if (sent.appKey === appKey) withoutVerdict.add(id)
  }
  /** Finds slow every fast merchant holding an attempt longer than a fast answer takes. */
  const findHung = (nowMs: number) => {
    if (fast.size === 0) return
    for (const sent of onTheWire.values()) {
      if (nowMs - sent.sentMs > options.fastMs && fast.has(sent.appKey)) slow(sent.appKey)
    }
  }
  const isFast = (appKey: string, nowMs: number) => {
    const entry = fast.get(appKey)
    return entry !== undefined && nowMs - entry.sinceMs <= FAST_FOR_MS
  }

  return {
    limitOf: (appKey, nowMs) => (isFast(appKey, nowMs) ? MAX_IN_FLIGHT_PER_MERCHANT : START_IN_FLIGHT_PER_MERCHANT),
    batchOf: (appKey, nowMs) => (isFast(appKey, nowMs) ? MAX_IN_FLIGHT_PER_MERCHANT / 2 : START_IN_FLIGHT_PER_MERCHANT),
    limits: (nowMs) => {
      findHung(nowMs)
      const limits = new Map<string, number>()
      for (const appKey of fast.keys()) if (isFast(appKey, nowMs)) limits.set(appKey, MAX_IN_FLIGHT_PER_MERCHANT)
      return limits
    },
    sent: (deliveryId, appKey, url, nowMs) => {
      // Another endpoint than the one found fast: what is on the wire says nothing of this one.
      const known = fast.get(appKey)?.url
      if (known !== undefined && known !== url) slow(appKey)
      onTheWire.set(deliveryId, { appKey, sentMs: nowMs })
    },
    dropped: (deliveryId) => {
      onTheWire.delete(deliveryId)
      withoutVerdict.delete(deliveryId)
    },
    learn: (batch, nowMs) => {
      const verdicts = new Map<string, { count: number; quick: boolean; url: string }>()
      for (const { deliveryId, appKey, url, delivered, durationMs } of batch) {
        onTheWire.delete(deliveryId)
        if (withoutVerdict.delete(deliveryId)) continue
        const verdict = verdicts.get(appKey) ?? { count: 0, quick: true, url }
        verdict.count++
        // Answers from two endpoints in one batch (the URL changed meanwhile) make no verdict of speed.
        verdict.quick &&= delivered && durationMs <= options.fastMs && url === verdict.url
        verdicts.set(appKey, verdict)
      }
      for (const [appKey, { count, quick, url }] of verdicts) {
        if (!quick) slow(appKey)
        else if (count >= START_IN_FLIGHT_PER_MERCHANT || (isFast(appKey, nowMs) && fast.get(appKey)?.url === url)) {
          // Most recently answered last: Map keeps insertion order.
          fast.delete(appKey)
          fast.set(appKey, { url, sinceMs: nowMs })
          if (fast.size > options.maxFast) fast.delete(fast.keys().next().value!)
        }
      }
      findHung(nowMs)
    },
    forget: slow
  }
}
