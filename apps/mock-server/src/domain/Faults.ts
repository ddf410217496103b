/**
 * The faults the mock injects (CONTRACT.md "Faults and time"), decided in one place for every
 * adapter of a route: a seeded PRNG, drawn the same number of times for each create-order request
 * that reaches storage, so that the same seed and the same sequence of requests give the same
 * faults. The setting is this process's (replicas each decide their own).
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

/** The fault setting of this process and its PRNG. */
export interface FaultsService {
  /** The setting in force. */
  readonly setting: () => FaultSetting
  /** Replaces the whole setting and starts its PRNG again from its seed (`{}` clears). */
  readonly set: (setting: FaultSetting) => void
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
  return {
    setting: () => current,
    set: (setting) => {
      current = setting
      random = prng(setting.seed ?? 0)
      callbackRandom = prng((setting.seed ?? 0) + 1)
    },
    duplicateCallback: () => callbackRandom() < (current.callbacks?.duplicateRate ?? 0),
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
