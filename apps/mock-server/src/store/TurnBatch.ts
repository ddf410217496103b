// Calls that arrive in the same turn of the event loop, run as one: a statement for many rows
// instead of one per row. On PostgreSQL each statement is a round trip, and on loopback TCP the
// write of each one costs the mock as much CPU as the rest of a create's work; one statement for
// the turn's creates pays it once.
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"

/**
 * A function whose calls made in one turn of the event loop are gathered (up to `maxBatch` per run)
 * and handed to `run` together, after the turn's I/O callbacks (`setImmediate`). `run` answers
 * with one output per input, in order; its failure is every call's failure. Each call's answer waits
 * for its own run, so nothing is answered before the statement that holds it returns.
 *
 * @example
 * ```ts
 * const lookup = perTurn(runtime, (keys: ReadonlyArray<string>) => findMany(keys))
 * const one = yield* lookup("a")
 * ```
 */
export const perTurn = <I, O, E>(
  runtime: Runtime.Runtime<never>,
  run: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
  maxBatch = 256
): ((input: I) => Effect.Effect<O, E>) => {
  let waiting: Array<{ readonly input: I; readonly resume: (answer: Effect.Effect<O, E>) => void }> = []
  const runAll = Runtime.runCallback(runtime)
  const flush = () => {
    const all = waiting
    waiting = []
    for (let from = 0; from < all.length; from += maxBatch) {
      const batch = all.slice(from, from + maxBatch)
      runAll(run(batch.map((call) => call.input)), {
        onExit: (exit) => {
          if (Exit.isFailure(exit)) {
            for (const call of batch) call.resume(Effect.failCause(exit.cause))
            return
          }
          if (exit.value.length !== batch.length) {
            const defect = Effect.dieMessage(`a batch of ${batch.length} answered ${exit.value.length}`)
            for (const call of batch) call.resume(defect)
            return
          }
          for (const [i, call] of batch.entries()) call.resume(Effect.succeed(exit.value[i]!))
        }
      })
    }
  }
  return (input) =>
    Effect.async<O, E>((resume) => {
      waiting.push({ input, resume })
      if (waiting.length === 1) setImmediate(flush)
    })
}
