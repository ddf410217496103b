// Calls that arrive together (in one turn of the event loop, or while the last run was in flight),
// run as one: a statement for many rows instead of one per row. On PostgreSQL each statement is a
// round trip, and on loopback TCP the write of each one cost the mock as much CPU as the rest of a
// create's work; one statement for the group pays it once.
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"

/**
 * A batched call, in two forms over the same batches: an Effect for callers on a fiber, and a
 * Promise for the request paths that run without one (domain/Step.ts): a fiber per request only
 * to wait for the batch would cost a create more than its share of the statement.
 */
export interface PerTurn<I, O, E> {
  /** The call's answer, or the run's failure. */
  readonly effect: (input: I) => Effect.Effect<O, E>
  /** The call's answer; rejected with the run's failure (an `E`) or, for a defect, what died. */
  readonly promise: (input: I) => Promise<O>
}

/**
 * A function whose calls made in one turn of the event loop are gathered (up to `maxBatch` per run)
 * and handed to `run` together, after the turn's I/O callbacks (`setImmediate`); while a run is in
 * flight, the calls made meanwhile wait for it to end and then go together in the next (one run at
 * a time: under load each run takes what came during the last, as a group commit does). `run`
 * answers with one output per input, in order; its failure is every call's failure. Each call's
 * answer waits for its own run, so nothing is answered before the statement that holds it returns.
 *
 * @example
 * ```ts
 * const lookup = perTurn(runtime, (keys: ReadonlyArray<string>) => findMany(keys))
 * const one = yield* lookup.effect("a")
 * const other = await lookup.promise("b")
 * ```
 */
export const perTurn = <I, O, E>(
  runtime: Runtime.Runtime<never>,
  run: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
  maxBatch = 256
): PerTurn<I, O, E> => {
  let waiting: Array<{ readonly input: I; readonly resume: (answer: Exit.Exit<O, E>) => void }> = []
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
          const failed = Exit.failCause(exit.cause)
          for (const call of batch) call.resume(failed)
          return
        }
        if (exit.value.length !== batch.length) {
          const defect = Exit.die(
            new Cause.RuntimeException(`a batch of ${batch.length} answered ${exit.value.length}`)
          )
          for (const call of batch) call.resume(defect)
          return
        }
        for (const [i, call] of batch.entries()) call.resume(Exit.succeed(exit.value[i]!))
      }
    })
  }
  const submit = (input: I, resume: (answer: Exit.Exit<O, E>) => void) => {
    waiting.push({ input, resume })
    if (!scheduled && !running) {
      scheduled = true
      setImmediate(flush)
    }
  }
  return {
    effect: (input) => Effect.async<O, E>((resume) => submit(input, resume)),
    promise: (input) =>
      new Promise<O>((resolve, reject) =>
        submit(input, (exit) => (Exit.isSuccess(exit) ? resolve(exit.value) : reject(Cause.squash(exit.cause))))
      )
  }
}
