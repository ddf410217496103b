/**
 * The rows this process holds leased (its attempts in flight, in total and per merchant) and what
 * says whether the next claim can find anything: the last claim's fill, the merchants it left with
 * more rows due, and when the earliest row not yet due falls due.
 */
import type { ClaimedDelivery, ClaimOptions } from "../store/DeliveryStore.js"
import type { Delivery } from "../store/Records.js"
import { MAX_IN_FLIGHT_PER_MERCHANT } from "./EndpointSpeeds.js"

/**
 * Attempts in flight at most. Setting a notify URL makes a whole backlog due at once: it is sent
 * at most this many at a time, not as thousands of simultaneous requests.
 */
export const MAX_IN_FLIGHT = 256

/**
 * Merchants with the raised limit at a time at most (EndpointSpeeds.ts): together they have at
 * most half the room, so endpoints that answered fast and then hang leave the other half free for
 * everyone else until their attempts time out.
 */
export const MAX_FAST_MERCHANTS = MAX_IN_FLIGHT / 2 / MAX_IN_FLIGHT_PER_MERCHANT

/** What a lease holds beyond an attempt's time: the attempt's outcome is recorded within it. */
const LEASE_MARGIN_MS = 1000

/**
 * How long a claim at `nowMs` leases its rows: while an attempt runs its row is not due (so the
 * loop does not spin, and no other replica on a shared database takes it), and if the process dies
 * mid-attempt the row is due again once the lease ends.
 *
 * @example
 * ```ts
 * leaseUntil(nowMs, 10_000) // nowMs + 11_000
 * ```
 */
export const leaseUntil = (nowMs: number, callbackTimeoutMs: number): number =>
  nowMs + callbackTimeoutMs + LEASE_MARGIN_MS

/**
 * The leases of one dispatcher. Plain bookkeeping, no I/O: the loop tells it what it claimed and
 * what ended, and asks it whether a claim is needed and for how many rows.
 *
 * @example
 * ```ts
 * const leases = new Leases()
 * const claimed = yield* store.claimDue(nowMs, untilMs, leases.claimOptions(room, perMerchant, limits))
 * leases.claimedFrom(claimed, room, limitOf)
 * leases.take(claimed, untilMs)
 * ```
 */
export class Leases {
  /** Deliveries with an attempt in flight in this process. */
  readonly inFlight = new Set<string>()
  /** How many of those each merchant has. */
  readonly byMerchant = new Map<string, number>()
  /** Merchants whose last claim took all the slots they had: they may have more rows due. */
  readonly saturated = new Set<string>()
  /** Whether the last claim took all the room there was: anyone may have more rows due. */
  roomFilled = false
  /**
   * Whether a claim may find something the last one did not: new work from this process, a retry
   * or lease falling due, or a slot freed for a merchant the last claims left with more due rows.
   * Without one of those a claim would come back empty, and it is skipped.
   */
  claimNeeded = true
  /** When the earliest delivery not due yet falls due, as last read or since learned; -Infinity: read again. */
  dueAtMs = Number.NEGATIVE_INFINITY

  /** How many more attempts may be in flight. */
  get room(): number {
    return MAX_IN_FLIGHT - this.inFlight.size
  }

  /** Something may be due now (new work, a new notify URL, a resend): the next tick claims. */
  needClaim(): void {
    this.claimNeeded = true
  }

  /** What only the database knows is read again: when the next delivery falls due, and by a claim. */
  forgetDue(): void {
    this.dueAtMs = Number.NEGATIVE_INFINITY
    this.claimNeeded = true
  }

  /** The store's claim options for up to `limit` rows, leaving out what is in flight here. */
  claimOptions(limit: number, perMerchant: number, limits: ReadonlyMap<string, number>): ClaimOptions {
    this.claimNeeded = false
    return { limit, perMerchant, limits, exclude: [...this.inFlight], inFlight: this.byMerchant }
  }

  /**
   * A claim for `room` rows came back with `claimed` (before they are taken): which merchants it
   * left with rows possibly due, by each one's limit.
   */
  claimedFrom(claimed: ReadonlyArray<Delivery>, room: number, limitOf: (appKey: string) => number): void {
    const claimedBy = new Map<string, number>()
    for (const delivery of claimed) claimedBy.set(delivery.appKey, (claimedBy.get(delivery.appKey) ?? 0) + 1)
    this.roomFilled = claimed.length >= room
    for (const appKey of [...this.saturated, ...claimedBy.keys()]) {
      const slots = limitOf(appKey) - (this.byMerchant.get(appKey) ?? 0)
      if ((claimedBy.get(appKey) ?? 0) >= slots) this.saturated.add(appKey)
      else this.saturated.delete(appKey)
    }
  }

  /** Claimed rows go in flight, leased until `leasedUntilMs` (when they are due again if they stay leased). */
  take(claimed: ReadonlyArray<ClaimedDelivery>, leasedUntilMs: number): void {
    for (const delivery of claimed) {
      this.inFlight.add(delivery.id)
      this.byMerchant.set(delivery.appKey, (this.byMerchant.get(delivery.appKey) ?? 0) + 1)
    }
    this.dueAtMs = Math.min(this.dueAtMs, leasedUntilMs)
  }

  /** Frees an attempt's slot (its outcome recorded, or never to be). */
  free(delivery: Delivery): void {
    this.inFlight.delete(delivery.id)
    const left = (this.byMerchant.get(delivery.appKey) ?? 1) - 1
    if (left <= 0) this.byMerchant.delete(delivery.appKey)
    else this.byMerchant.set(delivery.appKey, left)
  }

  /**
   * An attempt's outcome is recorded: its slot is free (a claim is needed if the last ones left
   * rows waiting for room), and a retry falls due at `nextAttemptAtMs`.
   */
  recorded(delivery: Delivery, nextAttemptAtMs: number | undefined): void {
    this.free(delivery)
    if (this.roomFilled || this.saturated.has(delivery.appKey)) this.claimNeeded = true
    if (nextAttemptAtMs !== undefined) this.dueAtMs = Math.min(this.dueAtMs, nextAttemptAtMs)
  }

  /** Attempts lost without an outcome (crashed before sending): their slots are free, their rows due when the lease ends. */
  lost(deliveries: ReadonlyArray<Delivery>): void {
    for (const delivery of deliveries) this.free(delivery)
    this.claimNeeded = true
  }
}
