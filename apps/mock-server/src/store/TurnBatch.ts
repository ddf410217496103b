// Calls that arrive together (in one turn of the event loop, or while the last run was in flight),
// run as one: a statement for many rows instead of one per row. On PostgreSQL each statement is a
// round trip, and on loopback TCP the write of each one cost the mock as much CPU as the rest of a
// create's work; one statement for the group pays it once.
import * as Cause from "effect/Cause"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"

/**
 * A function whose calls made in one turn of the event loop are gathered (up to `maxBatch` per run)
 * and handed to `run` together, after the turn's I/O callbacks (`setImmediate`); while a run is in
 * flight, the calls made meanwhile wait for it to end and then go together in the next (one run at
 * a time: under load each run takes what came during the last, as a group commit does). `run`
 * answers with one output per input, in order; its failure is every call's failure. Each call's
 * answer waits for its own run, so nothing is answered before the statement that holds it returns.
 * A call is a Promise, rejected with the run's failure (an `E`) or, for a defect, what died: the
 * request paths await it without a fiber (domain/Step.ts), since a fiber per request only to wait
 * for the batch would cost a create more than its share of the statement.
 *
 * @example
 * ```ts
 * const lookup = perTurn(runtime, (keys: ReadonlyArray<string>) => findMany(keys))
 * const one = await lookup("a")
 * ```
 */
export const perTurn = <I, O, E>(
  runtime: Runtime.Runtime<never>,
  run: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
  maxBatch = 256
): ((input: I) => Promise<O>) => {
  let waiting: Array<{
    readonly input: I
    readonly resolve: (output: O) => void
    readonly reject: (reason: unknown) => void
  }> = []
  let scheduled = false
  let running = false
  const runAll = Runtime.runCallback(runtime)
  const flush = () => {
    scheduled = false
    if (running || waiting.length === 0) return
    running = true
    const batch = waiting.slice(0, maxBatch)
    waiting = waiting.slice(maxBatch)
    runAll(run(batch.map((call) => call.input)), {
      onExit: (exit) => {
        running = false
        if (waiting.length > 0) flush()
        if (Exit.isFailure(exit)) {
          const reason = Cause.squash(exit.cause)
          for (const call of batch) call.reject(reason)
          return
        }
        if (exit.value.length !== batch.length) {
          const defect = new Cause.RuntimeException(`a batch of ${batch.length} answered ${exit.value.length}`)
          for (const call of batch) call.reject(defect)
          return
        }
        for (const [i, call] of batch.entries()) call.resolve(exit.value[i]!)
      }
    })
  }
  return (input) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ input, resolve, reject })
      if (!scheduled && !running) {
        scheduled = true
        setImmediate(flush)
      }
    })
}
