/**
 * The mock's log on stdout: logfmt lines, as `Logger.logFmt` prints them, written once per turn of
 * the event loop instead of once per line. The mock logs a line per request, and stdout on a pipe
 * is written synchronously: one write(2) per line was about a tenth of a signed create's CPU
 * (bench/RESULTS.md). Lines keep their order; what is pending is written on exit.
 */
import { Logger } from "effect"

let pending: Array<string> = []
let hooked = false

const flush = () => {
  if (pending.length === 0) return
  const text = `${pending.join("\n")}\n`
  pending = []
  process.stdout.write(text)
}

/**
 * A layer that replaces the default logger with the batched logfmt logger.
 *
 * @example
 * ```ts
 * ManagedRuntime.make(Layer.provideMerge(app, batchedLogFmt))
 * ```
 */
export const batchedLogFmt = Logger.replace(
  Logger.defaultLogger,
  Logger.map(Logger.logfmtLogger, (line) => {
    if (!hooked) {
      hooked = true
      process.once("exit", flush)
    }
    if (pending.length === 0) setImmediate(flush)
    pending.push(line)
  })
)
