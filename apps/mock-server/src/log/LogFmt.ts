/**
 * Effect's `Logger.logfmtLogger`, line for line the same text, for less work per line: the mock
 * writes a line per request, and the stock logger builds three closures and runs two regular
 * expressions per field, on the hot path of every create. Objects and errors are
 * rendered by Effect's own code, so redaction and causes read as before.
 */
import * as Cause from "effect/Cause"
import * as FiberId from "effect/FiberId"
import * as Inspectable from "effect/Inspectable"
import * as List from "effect/List"
import * as Logger from "effect/Logger"

/** Text logfmt writes bare; anything else is quoted as JSON (Effect's rule). */
const BARE = /^[^\s"=]*$/
const LABEL_UNSAFE = /[\s="]/

const label = (key: string): string => (LABEL_UNSAFE.test(key) ? key.replace(/[\s="]/g, "_") : key)
const value = (text: string): string => (BARE.test(text) ? text : JSON.stringify(text))
// No fiber (a line written without one, see RequestLog.ts) has no name: "" without building it.
// By its tag: Effect 3.22's FiberId.isNone recurses without end on a runtime fiber's id.
const threadName = (fiberId: FiberId.FiberId): string => (fiberId._tag === "None" ? "" : FiberId.threadName(fiberId))
const text = (u: unknown): string => (typeof u === "string" ? u : Inspectable.toStringUnknown(u, 0))

/**
 * One logfmt line: `timestamp=… level=… fiber=… message=…` (no `fiber=` without a fiber), the cause, the
 * spans, the annotations.
 *
 * @example
 * ```ts
 * Logger.replace(Logger.defaultLogger, Logger.map(logfmtLogger, (line) => process.stdout.write(`${line}\n`)))
 * ```
 */
export const logfmtLogger: Logger.Logger<unknown, string> = Logger.make(
  ({ annotations, cause, date, fiberId, logLevel, message, spans }) => {
    // A line written without a fiber (the request log, RequestLog.ts) leaves the field out rather
    // than print an empty `fiber=` on every request.
    const fiber = threadName(fiberId)
    let out = `timestamp=${value(date.toISOString())} level=${value(logLevel.label)}`
    if (fiber !== "") out += ` fiber=${value(fiber)}`
    if (Array.isArray(message)) {
      for (const part of message) out += ` message=${value(text(part))}`
    } else {
      out += ` message=${value(text(message))}`
    }
    if (!Cause.isEmptyType(cause)) out += ` cause=${value(Cause.pretty(cause, { renderErrorCause: true }))}`
    if (List.isCons(spans)) {
      const now = date.getTime()
      for (const span of spans) out += ` ${label(span.label)}=${now - span.startTime}ms`
    }
    for (const [key, annotation] of annotations) out += ` ${label(key)}=${value(text(annotation))}`
    return out
  }
)
