/**
 * A create-order request's fault (domain/Faults.ts) applied to its flow, once for both adapters:
 * `serverError` answers internalError before anything is stored; `lostResponse` stores the order and
 * answers internalError; `timeout` stores the order and holds the request, then asks the adapter to
 * close the connection without an answer; a delay holds the answer first. Every faulted answer
 * carries `X-Mock-Fault`, and every fault is a `fault` event.
 */
import type { FaultName } from "../../config/Faults.js"
import type { MockEventInput } from "../../events/MockEvents.js"
import { ApiError } from "../ApiError.js"
import type { CreateOrderFault } from "../Faults.js"
import * as Step from "../Step.js"
import type { CreateOrderOutcome } from "./CreateOrderOutcome.js"

/** The response header that names the fault of a faulted answer. */
export const FAULT_HEADER = "X-Mock-Fault"

/** How long a `timeout` fault holds the request before closing it: past any client's timeout. */
export const TIMEOUT_HOLD_MS = 30_000

const MESSAGES: Readonly<Record<Exclude<FaultName, "delay">, string>> = {
  serverError: "mock fault serverError: nothing was stored",
  lostResponse: "mock fault lostResponse: the order was stored, the answer lost (retry with the same orderId)",
  timeout: "mock fault timeout: the order was stored, the connection held and closed"
}

const later = <A, E>(ms: number, step: Step.Step<A, E>): Step.Step<A, E> =>
  ms <= 0 ? step : new Promise((resolve) => setTimeout(() => resolve(step), ms))

/**
 * Runs `store` (the order's creation) as `fault` says, and publishes each fault as an event. A
 * request the store refuses (duplicateOrder) is answered as it is: there was nothing to lose.
 *
 * @example
 * ```ts
 * return withFault(faults.createOrder(), { headers, note, publish, orderId, requestId }, () => storeIt())
 * ```
 */
export const withFault = <E>(
  fault: CreateOrderFault,
  context: {
    readonly headers: CreateOrderOutcome["headers"]
    readonly note: CreateOrderOutcome["note"]
    readonly publish: (event: MockEventInput) => void
    readonly orderId: string
    readonly requestId: string | undefined
  },
  store: () => Step.Step<CreateOrderOutcome, E>
): Step.Step<CreateOrderOutcome, E> => {
  const { kind, delayMs } = fault
  if (kind === undefined && delayMs === 0) return store()
  const faulted = (name: FaultName): void =>
    context.publish({
      type: "fault",
      name,
      route: "createOrder",
      orderId: context.orderId,
      requestId: context.requestId ?? null,
      delayMs
    })
  const headersOf = (name: FaultName) => ({ ...context.headers, [FAULT_HEADER]: name })
  if (kind === "serverError") {
    faulted(kind)
    const answer = new ApiError({ code: "internalError", msg: MESSAGES[kind] })
    return later(delayMs, { answer, headers: headersOf(kind), note: context.note })
  }
  const stored = Step.andThen(store(), (outcome): Step.Step<CreateOrderOutcome> => {
    if (outcome.answer instanceof ApiError) return outcome
    if (kind === undefined) {
      faulted("delay")
      return { ...outcome, headers: headersOf("delay") }
    }
    faulted(kind)
    const answer = new ApiError({ code: "internalError", msg: MESSAGES[kind] })
    const lost: CreateOrderOutcome = { ...outcome, answer, headers: headersOf(kind), hangUp: kind === "timeout" }
    return kind === "timeout" ? later(TIMEOUT_HOLD_MS, lost) : lost
  })
  return later(delayMs, stored)
}
