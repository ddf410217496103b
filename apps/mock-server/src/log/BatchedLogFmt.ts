/**
 * The mock's log on stdout: logfmt lines, as `Logger.logFmt` prints them (LogFmt.ts), written
 * together every few milliseconds instead of once per line. The mock logs a line per request, and stdout on a pipe
 * is written synchronously: one write(2) per line was about a tenth of a signed create's CPU
 * (bench/RESULTS.md), and one per turn of the event loop still one per request when requests come
 * one at a time (issue 12's 1-connection profile). Lines keep their order, appear at most
 * {@link FLUSH_MS} late, and what is pending is written on exit.
 */
import { Logger } from "effect"
import { logfmtLogger } from "./LogFmt.js"

/** How long a line may wait for others before the batch is written. */
export const FLUSH_MS = 25

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
  Logger.map(logfmtLogger, (line) => {
    if (!hooked) {
      hooked = true
      process.once("exit", flush)
    }
    // Unref'd: a batch waiting to be written never keeps the process alive; exit writes it.
    if (pending.length === 0) setTimeout(flush, FLUSH_MS).unref()
    pending.push(line)
  })
)
