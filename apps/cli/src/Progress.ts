/**
 * A progress line for what waits (`pc listen` for callbacks, `pc trigger` for the delivery): a
 * spinner and a short text on stderr, redrawn in place, with result lines printed above it. Only
 * when stdout and stderr are both terminals and the command is not `--json`: piped output and JSON
 * documents never hold a control character.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** A running progress line. */
export interface ProgressLine {
  /** Whether the line is drawn (a terminal, not `--json`). */
  readonly shown: boolean
  /** Changes the text beside the spinner. */
  readonly update: (text: string) => void
  /** Writes one line on stdout above the progress line. */
  readonly log: (text: string) => void
}

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
const clear = "\r\u001b[2K"

/** Whether a progress line may be drawn: both streams are terminals and the output is not JSON. */
export const progressAllowed = (asJson: boolean): boolean =>
  !asJson && process.stdout.isTTY === true && process.stderr.isTTY === true

/**
 * Starts a progress line for the rest of the scope; it is erased when the scope closes (the
 * command ends or Ctrl-C interrupts it). Where it is not allowed, `log` just writes the line.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { progressLine } from "./Progress.js"
 *
 * Effect.scoped(Effect.gen(function* () {
 *   const progress = yield* progressLine("waiting for callbacks", { json: false })
 *   progress.log("order.paid verified")
 * }))
 * ```
 */
export const progressLine = (
  text: string,
  options: { readonly json: boolean }
): Effect.Effect<ProgressLine, never, Scope.Scope> => {
  if (!progressAllowed(options.json)) {
    return Effect.succeed({
      shown: false,
      update: () => {},
      log: (line) => {
        process.stdout.write(`${line}\n`)
      }
    })
  }
  return Effect.acquireRelease(
    Effect.sync(() => {
      let current = text
      let frame = 0
      const draw = () => {
        process.stderr.write(`${clear}${frames[frame % frames.length]} ${current}`)
      }
      draw()
      const timer = setInterval(() => {
        frame++
        draw()
      }, 100)
      // A spinner alone must not keep the process alive.
      timer.unref()
      const line: ProgressLine = {
        shown: true,
        update: (next) => {
          current = next
          draw()
        },
        log: (text) => {
          process.stderr.write(clear)
          process.stdout.write(`${text}\n`)
          draw()
        }
      }
      return { line, timer }
    }),
    ({ timer }) =>
      Effect.sync(() => {
        clearInterval(timer)
        process.stderr.write(clear)
      })
  ).pipe(Effect.map(({ line }) => line))
}
