/**
 * The mock's log on stdout: logfmt lines, as `Logger.logFmt` prints them (LogFmt.ts), written
 * together every few milliseconds instead of once per line. The mock logs a line per request, so a
 * write(2) per line (or per turn of the event loop, which is per request when requests come one
 * at a time) would be a system call on every request. Lines keep their order, appear at most
 * {@link FLUSH_MS} late, and what is
 * pending is written on exit.
 *
 * Node writes to a pipe asynchronously: what its reader has not taken waits in the process's memory.
 * So a reader that stops reading (a paused `less`, a stuck log shipper) must not make the mock grow
 * without bound: past {@link MAX_WAITING_BYTES} waiting, lines are dropped and counted, and the
 * count is logged once the reader has caught up (or at exit). A stream that has failed (EPIPE: its
 * reader is gone) is written no more. Whether such a failure ends the process is its owner's
 * choice: `pc mock` serves on without its log; in a merchant's own process (`startMock`) the
 * mock leaves stdout's errors to the host. At exit, lines still waiting for a slow reader on a pipe
 * may be lost: Node does not wait for a pipe's reader when the process ends.
 */
import * as Logger from "effect/Logger"
import { logfmtLogger } from "./LogFmt.js"

/** How long a line may wait for others before the batch is written. */
export const FLUSH_MS = 25

/** Log text that may wait for a slow reader before lines are dropped: a few seconds of a busy mock's log. */
export const MAX_WAITING_BYTES = 1024 * 1024

/** Where the batches go: `process.stdout`, or in tests a real pipe. */
export type LogStream = Pick<NodeJS.WritableStream, "write"> & {
  readonly writable: boolean
  readonly writableLength: number
}

/** A line in the log's own format saying how many lines a slow reader cost. */
const droppedLine = (count: number): string =>
  `timestamp=${new Date().toISOString()} level=WARN message=${JSON.stringify(
    `${count} log lines dropped: stdout was not read while more than ${MAX_WAITING_BYTES} bytes of log waited`
  )}`

/**
 * Batches lines for `stream`: `write` queues a line, `flush` writes what is queued (also run
 * {@link FLUSH_MS} after the first line of a batch, and on exit). Past `maxWaitingBytes` not yet
 * taken by the reader, a batch is dropped and counted instead (except the last, at exit, which
 * carries the count); once the stream has failed or ended, nothing more is written.
 *
 * @example
 * ```ts
 * const log = batchedWriter(process.stdout)
 * log.write("level=INFO message=hello")
 * ```
 */
export const batchedWriter = (stream: LogStream, maxWaitingBytes = MAX_WAITING_BYTES) => {
  let pending: Array<string> = []
  let dropped = 0
  const flush = (atExit = false) => {
    if (pending.length === 0 && !(atExit && dropped > 0)) return
    const lines = pending
    pending = []
    if (!stream.writable) return
    if (!atExit && stream.writableLength > maxWaitingBytes) {
      dropped += lines.length
      return
    }
    if (dropped > 0) {
      lines.unshift(droppedLine(dropped))
      dropped = 0
    }
    stream.write(`${lines.join("\n")}\n`)
  }
  process.once("exit", () => flush(true))
  return {
    write: (line: string) => {
      // Unref'd: a batch waiting to be written never keeps the process alive; exit writes it.
      if (pending.length === 0) setTimeout(flush, FLUSH_MS).unref()
      pending.push(line)
    },
    flush: () => flush(),
    /** Lines dropped since the last batch written. */
    dropped: () => dropped
  }
}

let stdout: ReturnType<typeof batchedWriter> | undefined

/**
 * The batched logfmt logger on stdout. One writer per process, however many mocks it starts
 * (tests do): one batch, one exit hook.
 *
 * @example
 * ```ts
 * Logger.replace(Logger.defaultLogger, batchedLogFmtLogger())
 * ```
 */
export const batchedLogFmtLogger = (): Logger.Logger<unknown, void> => {
  stdout ??= batchedWriter(process.stdout)
  return Logger.map(logfmtLogger, stdout.write)
}
