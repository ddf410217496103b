/**
 * One attempt of each claimed delivery: refused before sending when there is nowhere to send it,
 * else signed with the current platform key, recorded as begun, and sent through the
 * {@link Sender}; each attempt's end is handed on as an {@link EndedAttempt} to be recorded.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Canonical, Headers } from "@pc/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { isoTime } from "../store/IsoTime.js"
import type { ClaimedDelivery } from "../store/DeliveryStore.js"
import type { Delivery } from "../store/Records.js"
import type { StoreService } from "../store/Store.js"
import { pointsAtSelf, type SelfAddress } from "../config/UrlRule.js"
import type { EndpointSpeeds } from "./EndpointSpeeds.js"
import type { EndedAttempt } from "./Outcomes.js"
import type { PlatformKeysShape } from "./PlatformKeys.js"
import type { PostResult, Sender } from "./Sender.js"

const NO_NOTIFY_URL = "merchant has no notifyUrl yet; retried with backoff, and at once when it is set"
const SELF_NOTIFY_URL = "not sent: the notifyUrl points at this mock itself; set the merchant's own receiver"

/**
 * The attempts on the wire, by delivery, with what cancels each: a stop cuts them off (their rows
 * stay leased, their attempts show no outcome, as after a crash), and after it nothing is sent.
 *
 * @example
 * ```ts
 * const wire = new OnTheWire()
 * wire.add("dlv_1", cancel)
 * wire.stop((id) => speeds.dropped(id)) // cancels dlv_1
 * ```
 */
export class OnTheWire {
  private readonly cancels = new Map<string, () => void>()
  /** Set by the stop: nothing more is sent. */
  stopping = false

  add(deliveryId: string, cancel: () => void): void {
    this.cancels.set(deliveryId, cancel)
  }

  /** The attempt left the wire (it ended). */
  delete(deliveryId: string): void {
    this.cancels.delete(deliveryId)
  }

  has(deliveryId: string): boolean {
    return this.cancels.has(deliveryId)
  }

  /** Cuts off every attempt on the wire, telling `cut` of each; nothing is sent after. */
  stop(cut: (deliveryId: string) => void): void {
    this.stopping = true
    for (const [id, cancel] of this.cancels) {
      cancel()
      cut(id)
    }
    this.cancels.clear()
  }
}

/** What was sent in an attempt, as it is recorded. */
interface Sent {
  readonly at: string
  readonly url: string
  readonly keyVersion: number
  readonly number: number
}

/** An attempt's end, from what the sender reported. */
const endOf = (
  result: PostResult
): { readonly httpStatus: number | null; readonly delivered: boolean; readonly error: string | null } => {
  const httpStatus = "status" in result ? result.status : null
  const delivered = httpStatus !== null && httpStatus >= 200 && httpStatus < 300
  if (delivered) return { httpStatus, delivered, error: null }
  const error =
    "error" in result
      ? result.error
      : `merchant answered HTTP ${httpStatus}${result.excerpt ? `: ${result.excerpt}` : ""}`
  return { httpStatus, delivered, error }
}

/** What attempts need: where they go, how they are signed and recorded, and where their ends go. */
export interface AttemptDeps {
  readonly store: StoreService
  readonly keys: PlatformKeysShape
  readonly self: SelfAddress
  readonly sender: Sender
  readonly speeds: EndpointSpeeds
  readonly wire: OnTheWire
  /** The time now, read without a fiber step. */
  readonly nowMs: () => number
  /** Hands an ended attempt on to be recorded. */
  readonly settle: (ended: EndedAttempt) => void
}

/** Sends one signed, begun attempt; its end is settled when the answer (or the error) comes. */
const send = (
  deps: AttemptDeps,
  delivery: Delivery,
  leasedUntilMs: number,
  sent: Sent,
  headers: Record<string, string>
) => {
  if (deps.wire.stopping) return
  const sentMs = deps.nowMs()
  const cancel = deps.sender.post(sent.url, headers, delivery.body, (result) => {
    deps.wire.delete(delivery.id)
    const endedMs = deps.nowMs()
    const { delivered, error, httpStatus } = endOf(result)
    deps.settle({
      delivery,
      leasedUntilMs,
      // The latency the merchant's endpoint caused: from sending until its answer (or the error).
      attempt: {
        at: sent.at,
        url: sent.url,
        httpStatus,
        error,
        keyVersion: sent.keyVersion,
        durationMs: endedMs - sentMs
      },
      delivered,
      failed: sent.number,
      endedMs,
      begun: sent.number
    })
  })
  deps.wire.add(delivery.id, cancel)
  deps.speeds.sent(delivery.id, delivery.appKey, sent.url, sentMs)
}

/**
 * The claimed deliveries that can be sent; the others (no notify URL, or one naming this mock)
 * end at once as failed attempts, retried with the same backoff, and made due at once when the
 * merchant sets its notify URL (see Store.setNotifyUrl).
 */
const sendable = (
  deps: AttemptDeps,
  claimed: ReadonlyArray<ClaimedDelivery>,
  leasedUntilMs: number,
  startedMs: number,
  at: string
): Array<{ readonly delivery: ClaimedDelivery; readonly url: string }> => {
  const out: Array<{ readonly delivery: ClaimedDelivery; readonly url: string }> = []
  for (const delivery of claimed) {
    const url = delivery.notifyUrl
    // A URL stored before this run may name this very mock now (another port or public URL):
    // sending there would run one of its own routes, so it is refused like an unset one.
    const refusal = url === null ? NO_NOTIFY_URL : pointsAtSelf(new URL(url), deps.self) ? SELF_NOTIFY_URL : undefined
    if (refusal === undefined && url !== null) {
      out.push({ delivery, url })
      continue
    }
    deps.settle({
      delivery,
      leasedUntilMs,
      attempt: { at, url, httpStatus: null, error: refusal ?? NO_NOTIFY_URL, keyVersion: null, durationMs: 0 },
      delivered: false,
      failed: delivery.attemptCount + 1,
      endedMs: startedMs
    })
  }
  return out
}

/**
 * One attempt of each delivery of a claim, leased until `leasedUntilMs` (see `Store.claimDue`):
 * signed (on the thread pool, all at once), recorded as begun in one transaction before any is
 * sent (CONTRACT.md), then sent side by side; each end is settled as it comes, after this effect
 * has ended.
 *
 * @example
 * ```ts
 * yield* attemptAll(deps, claimed, leasedUntilMs)
 * ```
 */
export const attemptAll = (
  deps: AttemptDeps,
  claimed: ReadonlyArray<ClaimedDelivery>,
  leasedUntilMs: number
): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    // First, before the clock is read: just after a new environment's start the key may still be
    // in the making (PlatformKeys), and that wait is neither the attempt's time nor its timestamp.
    const key = yield* deps.keys.current
    const startedMs = yield* Clock.currentTimeMillis
    const at = isoTime(startedMs)
    // A fresh timestamp and signature on every attempt: a retried callback is never stale.
    const timestamp = String(startedMs)
    const ready = sendable(deps, claimed, leasedUntilMs, startedMs, at)
    if (ready.length === 0) return
    // All on the thread pool at once, awaited together (one fiber, not one per signature).
    const signatures = yield* Effect.promise(() =>
      Promise.all(
        ready.map(({ delivery }) =>
          key.signer.sign(Canonical.callbackStringToSign({ appKey: delivery.appKey, timestamp, body: delivery.body }))
        )
      )
    )
    const signed = ready.map(({ delivery, url }, i) => ({
      delivery,
      url,
      headers: {
        "content-type": "application/json",
        [Headers.CallbackHeaders.timestamp]: timestamp,
        [Headers.CallbackHeaders.signature]: signatures[i]!,
        [Headers.CallbackHeaders.keyVersion]: String(key.version)
      }
    }))
    // Recorded before they are sent, with exactly what is sent: an attempt cut short by a crash
    // still shows (CONTRACT.md), and the dashboard can show and verify what the merchant received.
    const numbers = yield* deps.store.beginAttempts(
      signed.map(({ delivery, headers, url }) => ({
        deliveryId: delivery.id,
        at,
        url,
        keyVersion: key.version,
        requestHeaders: headers,
        requestBody: delivery.body
      }))
    )
    signed.forEach(({ delivery, headers, url }, i) => {
      send(deps, delivery, leasedUntilMs, { at, url, keyVersion: key.version, number: numbers[i]! }, headers)
    })
  })
