/**
 * A step of request work that is done at once when it can be and waits only when it must: a plain
 * value, a plain {@link ApiError} (the request is refused), a Promise of a step (a signature's
 * verification, a group's commit, PostgreSQL's statement for the requests that arrived together), or
 * an Effect (storage that only a fiber can wait for: a cache miss, a transaction in progress). The
 * create-order flow is written once in steps; the HttpApi route runs it as an Effect
 * ({@link toEffect}), and the create-order fast path runs it without a fiber when every step is
 * plain or a Promise ({@link run}), which is the common case on SQLite and on PostgreSQL: a fiber
 * per request, and a fiber step per check, would cost more than a signed create's own work.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import { ApiError } from "./ApiError.js"

/** A value now, a refusal now, or either later (see the module's comment). `A` is a plain value. */
export type Step<A, E = never> = A | ApiError | Promise<Step<A, E>> | Effect.Effect<A, ApiError | E>

const isPromise = (step: unknown): step is Promise<unknown> => step instanceof Promise

/**
 * Continues `step` with `onSuccess`, or with `onFailure` when it is refused (an ApiError, now or
 * later); an Effect's other failures (a storage SqlError) pass through untouched.
 *
 * @example
 * ```ts
 * const answer = Step.match(orders.create(appKey, order, nowMs), (created) => created.result, (refused) => refused)
 * ```
 */
export const match = <A, B, E, E2 = never>(
  step: Step<A, E>,
  onSuccess: (value: A) => Step<B, E2>,
  onFailure: (refused: ApiError) => Step<B, E2>
): Step<B, E | E2> => {
  // First: an ApiError is a YieldableError, and so an Effect too.
  if (step instanceof ApiError) return onFailure(step)
  if (isPromise(step)) return step.then((inner) => match(inner, onSuccess, onFailure))
  if (Effect.isEffect(step)) {
    return Effect.matchEffect(step as Effect.Effect<A, ApiError | E>, {
      onSuccess: (value) => toEffect<B, E | E2>(onSuccess(value)),
      onFailure: (error) =>
        error instanceof ApiError ? toEffect<B, E | E2>(onFailure(error)) : Effect.fail(error as E | E2)
    })
  }
  return onSuccess(step as A)
}

/**
 * A Promise as a step: its value, or, when it rejects, the step's failure if `isFailure` says the
 * reason is one (a storage SqlError), else a defect. The value must be plain, as every step's is:
 * one that is itself an Effect (a tagged error such as the store's Conflict) would be run as one.
 *
 * @example
 * ```ts
 * const keys = Step.fromPromise(store.authKeysNow(appKey), (error) => error instanceof SqlError)
 * ```
 */
export const fromPromise = <A, E>(promise: Promise<A>, isFailure: (reason: unknown) => reason is E): Step<A, E> =>
  promise.then(
    (value): Step<A, E> => value,
    (reason: unknown): Step<A, E> => (isFailure(reason) ? Effect.fail(reason) : Effect.die(reason))
  )

/**
 * Continues `step` with `f` when it succeeds; a refusal stays one.
 *
 * @example
 * ```ts
 * const result = Step.andThen(orders.create(appKey, order, nowMs), (created) => created.result)
 * ```
 */
export const andThen = <A, B, E, E2 = never>(step: Step<A, E>, f: (value: A) => Step<B, E2>): Step<B, E | E2> =>
  match(step, f, (refused) => refused)

/**
 * The step with its failure other than a refusal (a storage SqlError) turned by `f`; values and
 * refusals stay as they are.
 *
 * @example
 * ```ts
 * const step = Step.mapError(orders.create(appKey, order, nowMs), (cause) => new Failed({ cause, note }))
 * ```
 */
export const mapError = <A, E, E2>(step: Step<A, E>, f: (error: E) => E2): Step<A, E2> => {
  if (step instanceof ApiError) return step
  if (isPromise(step)) return step.then((inner) => mapError(inner, f))
  if (Effect.isEffect(step)) {
    return Effect.mapError(step as Effect.Effect<A, ApiError | E>, (error) =>
      error instanceof ApiError ? error : f(error as E)
    )
  }
  return step
}

/**
 * Ends `step` whatever happens: `onSuccess` with its value, `onFailure` with why there is none (a
 * refusal, an Effect's failure or defect, a rejected Promise). The step it returns cannot fail.
 *
 * @example
 * ```ts
 * const likely = Step.matchAll(diagnose(input, nowMs, keysOf), (cause) => cause ?? null, () => null)
 * ```
 */
export const matchAll = <A, B, E>(
  step: Step<A, E>,
  onSuccess: (value: A) => B,
  onFailure: (cause: unknown) => B
): Step<B> => {
  if (step instanceof ApiError) return onFailure(step)
  if (isPromise(step)) return step.then((inner) => matchAll(inner, onSuccess, onFailure), onFailure)
  if (Effect.isEffect(step)) {
    return Effect.matchCause(step as Effect.Effect<A, ApiError | E>, {
      onSuccess,
      onFailure: (cause) => onFailure(Cause.squash(cause))
    })
  }
  return onSuccess(step as A)
}

/**
 * The step as an Effect: what the HttpApi route runs.
 *
 * @example
 * ```ts
 * const result = yield* Step.toEffect(flow.create({ source, bytes }))
 * ```
 */
export const toEffect = <A, E>(step: Step<A, E>): Effect.Effect<A, ApiError | E> => {
  if (step instanceof ApiError) return Effect.fail(step)
  if (isPromise(step))
    return Effect.flatMap(
      Effect.promise(() => step),
      toEffect
    )
  if (Effect.isEffect(step)) return step as Effect.Effect<A, ApiError | E>
  return Effect.succeed(step as A)
}

/**
 * Runs the step to its end and calls `done` once with how it ended: at once for a plain step, after
 * the Promise for a Promise, and on a fiber forked by `runFork` only for an Effect. A rejected
 * Promise ends as a defect.
 *
 * @example
 * ```ts
 * Step.run(flow.create({ source, bytes }), Runtime.runFork(runtime), (exit) => answer(exit))
 * ```
 */
export const run = <A, E>(
  step: Step<A, E>,
  runFork: (effect: Effect.Effect<A, ApiError | E>) => Fiber.RuntimeFiber<A, ApiError | E>,
  done: (exit: Exit.Exit<A, ApiError | E>) => void
): void => {
  if (step instanceof ApiError) {
    done(Exit.fail(step))
    return
  }
  if (isPromise(step)) {
    step.then(
      (inner) => run(inner, runFork, done),
      (defect: unknown) => done(Exit.die(defect))
    )
    return
  }
  if (Effect.isEffect(step)) {
    runFork(step as Effect.Effect<A, ApiError | E>).addObserver(done)
    return
  }
  done(Exit.succeed(step as A))
}
