/**
 * What ends every request, whichever path served it: its log line (`message=request` with method,
 * path, status, duration and request id) and its `request` event for `/dev/events`. Plain
 * functions over a runtime's or a fiber's FiberRefs, so that the create-order fast path, which
 * serves most requests without a fiber, writes the same line through the same loggers as the
 * HttpApi app does from its fiber.
 */
import * as Cause from "effect/Cause"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as List from "effect/List"
import * as LogLevel from "effect/LogLevel"
import type { MockEventInput, SignatureNote } from "../events/MockEvents.js"
import { capped } from "./LogText.js"

/**
 * A function that writes one log line through the loggers that `refs` hold (a runtime's or a
 * fiber's), at a level at or above their minimum, with `refs`' annotations and its own on it: what
 * `Effect.log` does from a fiber, without one. What it needs from `refs` is read once, here: a
 * runtime's FiberRefs never change, and the fast path logs through one on every request.
 *
 * @example
 * ```ts
 * const log = loggerOf(runtime.fiberRefs)
 * log(LogLevel.Info, "request", { requestId, status: 200 })
 * ```
 */
export const loggerOf = (
  refs: FiberRefs.FiberRefs
): ((level: LogLevel.LogLevel, message: string, annotations: Readonly<Record<string, unknown>>) => void) => {
  const minimum = FiberRefs.getOrDefault(refs, FiberRef.currentMinimumLogLevel)
  const loggers = Array.from(FiberRefs.getOrDefault(refs, FiberRef.currentLoggers))
  const base = FiberRefs.getOrDefault(refs, FiberRef.currentLogAnnotations)
  return (level, message, annotations) => {
    if (loggers.length === 0 || LogLevel.greaterThan(minimum, level)) return
    // One copy of the runtime's annotations, edited in place: a persistent set per key made a
    // new trie path for each key, garbage on every request.
    const all = HashMap.mutate(base, (map) => {
      for (const key in annotations) HashMap.set(map, key, annotations[key])
    })
    const date = new Date()
    for (const logger of loggers) {
      logger.log({
        fiberId: FiberId.none,
        logLevel: level,
        message: [message],
        cause: Cause.empty,
        context: refs,
        spans: List.empty(),
        annotations: all,
        date
      })
    }
  }
}

/** One finished request, as its log line and event tell it. */
export interface FinishedRequest {
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  /** Create-order only: what the signature check decided. */
  readonly signature: SignatureNote | undefined
}

/**
 * Logs the request's line and publishes its `request` event. Method and path are capped: they are
 * the client's text.
 *
 * @example
 * ```ts
 * recordRequest(loggerOf(runtime.fiberRefs), events.publishNow, { requestId, method, path, status, durationMs, signature })
 * ```
 */
export const recordRequest = (
  log: (level: LogLevel.LogLevel, message: string, annotations: Readonly<Record<string, unknown>>) => void,
  publishNow: (event: MockEventInput) => void,
  request: FinishedRequest
): void => {
  const method = capped(request.method)
  const path = capped(request.path)
  const { requestId, status, durationMs, signature } = request
  log(LogLevel.Info, "request", { requestId, method, path, status, durationMs })
  publishNow({
    type: "request",
    requestId,
    method,
    path,
    status,
    durationMs,
    ...(signature === undefined ? {} : { signature })
  })
}
