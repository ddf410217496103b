/**
 * The faults the mock injects (CONTRACT.md "Faults and time"), decided in one place for every
 * adapter of a route: a seeded PRNG, drawn the same number of times for each create-order request
 * that reaches storage, so that the same seed and the same sequence of requests give the same
 * faults. The setting is stored (domain/SharedFaults.ts), so replicas on PostgreSQL share it; each
 * process keeps its own PRNGs, started again from the seed whenever it takes a setting in.
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type { FaultSetting } from "../config/Faults.js"

/** What happens to one create-order request. */
export interface CreateOrderFault {
  /** Answered internalError before anything is stored, stored but answered 500, or held and closed. */
  readonly kind: "serverError" | "lostResponse" | "timeout" | undefined
  /** How long the answer waits first (0: not delayed). */
  readonly delayMs: number
}

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
const prng = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

const within = (range: readonly [number, number] | undefined, draw: number): number =>
  range === undefined ? 0 : range[0] + Math.floor(draw * (range[1] - range[0] + 1))

/** A callback queued with an order's move, as the faults see it. */
export interface QueuedCallback {
  readonly deliveryId: string
  readonly orderSn: string
}

/** A claimed delivery, as {@link FaultsService.shuffle} sees it. */
export interface ClaimedCallback {
  readonly id: string
  readonly orderSn: string
}

/** How many shuffle ranks are kept for deliveries not claimed yet (another replica may claim them). */
const RANKS_KEPT = 10_000

/** The fault setting of this process and its PRNGs. */
export interface FaultsService {
  /** The setting in force. */
  readonly setting: () => FaultSetting
  /** Which stored setting this is (domain/SharedFaults.ts); `undefined` before one was stored. */
  readonly revision: () => string | undefined
  /**
   * Replaces the whole setting and starts its PRNGs again from its seed (`{}` clears); `revision`
   * names the stored setting it came from.
   */
  readonly set: (setting: FaultSetting, revision?: string) => void
  /**
   * A callback was queued with its order's move: how long its first attempt waits
   * (`callbacks.delayMs`, 0 when not set; a PRNG of its own, seed + 2), and, with
   * `callbacks.outOfOrder`, its place in the shuffle (seed + 3), kept until it is claimed.
   */
  readonly callbackQueued: (callback: QueuedCallback) => number
  /**
   * A claimed batch in the order its attempts go out: as claimed without `callbacks.outOfOrder`;
   * with it, by the places drawn when they were queued (a delivery queued by another replica, or a
   * retry, draws its place now), except that the deliveries of one order keep their order.
   */
  readonly shuffle: <A extends ClaimedCallback>(claimed: ReadonlyArray<A>) => ReadonlyArray<A>
  /** Decides one create-order request's fault (draws four numbers, whatever the setting). */
  readonly createOrder: () => CreateOrderFault
  /**
   * Whether an acknowledged callback is delivered again (`callbacks.duplicateRate`). Its own PRNG
   * (seed + 1), so that callbacks never shift create-order's faults.
   */
  readonly duplicateCallback: () => boolean
}

/**
 * Faults decided from `initial`, and from whatever `PUT /dev/faults` sets later.
 *
 * @example
 * ```ts
 * const faults = makeFaults({ seed: 7, createOrder: { lostResponseRate: 0.3 } })
 * faults.createOrder() // { kind: "lostResponse", delayMs: 0 } about 3 times in 10
 * ```
 */
export const makeFaults = (initial: FaultSetting = {}): FaultsService => {
  let current = initial
  let random = prng(initial.seed ?? 0)
  let callbackRandom = prng((initial.seed ?? 0) + 1)
  let delayRandom = prng((initial.seed ?? 0) + 2)
  let shuffleRandom = prng((initial.seed ?? 0) + 3)
  let currentRevision: string | undefined
  /** Each queued delivery's place in the shuffle, until it is claimed. */
  const ranks = new Map<string, number>()
  return {
    setting: () => current,
    revision: () => currentRevision,
    set: (setting, revision) => {
      current = setting
      currentRevision = revision
      random = prng(setting.seed ?? 0)
      callbackRandom = prng((setting.seed ?? 0) + 1)
      delayRandom = prng((setting.seed ?? 0) + 2)
      shuffleRandom = prng((setting.seed ?? 0) + 3)
      ranks.clear()
    },
    duplicateCallback: () => callbackRandom() < (current.callbacks?.duplicateRate ?? 0),
    callbackQueued: ({ deliveryId }) => {
      const callbacks = current.callbacks ?? {}
      if (callbacks.outOfOrder === true) {
        ranks.set(deliveryId, shuffleRandom())
        if (ranks.size > RANKS_KEPT) ranks.delete(ranks.keys().next().value!)
      }
      return callbacks.delayMs === undefined ? 0 : within(callbacks.delayMs, delayRandom())
    },
    shuffle: (claimed) => {
      if (current.callbacks?.outOfOrder !== true || claimed.length < 2) {
        for (const delivery of claimed) ranks.delete(delivery.id)
        return claimed
      }
      const ranked = claimed.map((delivery) => {
        const rank = ranks.get(delivery.id) ?? shuffleRandom()
        ranks.delete(delivery.id)
        return { delivery, rank }
      })
      const places = [...ranked].sort((a, b) => a.rank - b.rank).map(({ delivery }) => delivery)
      // One order's deliveries take the places its deliveries drew, in the order they were claimed.
      const byOrder = new Map<string, Array<(typeof claimed)[number]>>()
      for (const delivery of claimed)
        byOrder.set(delivery.orderSn, [...(byOrder.get(delivery.orderSn) ?? []), delivery])
      return places.map((delivery) => byOrder.get(delivery.orderSn)!.shift()!)
    },
    createOrder: () => {
      const rates = current.createOrder ?? {}
      // Always four draws, so that one request's fault never shifts the next one's.
      const [server, lost, timeout, delay] = [random(), random(), random(), random()]
      const delayMs = within(rates.delayMs, delay)
      if (server < (rates.serverErrorRate ?? 0)) return { kind: "serverError", delayMs }
      if (lost < (rates.lostResponseRate ?? 0)) return { kind: "lostResponse", delayMs }
      if (timeout < (rates.timeoutRate ?? 0)) return { kind: "timeout", delayMs }
      return { kind: undefined, delayMs }
    }
  }
}

/**
 * The {@link FaultsService} of a running mock.
 *
 * @example
 * ```ts
 * const faults = yield* Faults
 * faults.set({})
 * ```
 */
export class Faults extends Context.Tag("@pc/mock-server/Faults")<Faults, FaultsService>() {
  /** Faults starting from `initial` (`pc mock --faults`, `startMock({ faults })`). */
  static readonly layer = (initial: FaultSetting = {}) => Layer.sync(Faults, () => makeFaults(initial))
}
