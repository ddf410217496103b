/**
 * The delivery loop's sleep and its wake-up: the loop sleeps until its next timer or until new
 * work wakes it, and a wake-up that comes while it works is kept for its next sleep, so nothing
 * committed meanwhile waits for a timer.
 */
import * as Effect from "effect/Effect"

/**
 * One loop's sleep. One native timer and no fiber of its own: the loop sleeps between most claims,
 * so its sleep is kept as plain as a timer.
 *
 * @example
 * ```ts
 * const wakeup = new Wakeup()
 * yield* wakeup.sleep(1000) // ends early on wakeup.wakeNow()
 * ```
 */
export class Wakeup {
  /** Ends the current sleep; undefined while the loop works. */
  private waker: (() => void) | undefined = undefined
  /** A wake-up that came while the loop was working. */
  private woken = false
  /** When the sleeping loop wakes up by itself; -Infinity while it is working. */
  sleepingUntil = Number.NEGATIVE_INFINITY

  /** Ends the loop's sleep now, or (while it works) the next one at once. Plain: callable without a fiber. */
  readonly wakeNow = (): void => {
    if (this.waker !== undefined) this.waker()
    else this.woken = true
  }

  /** {@link wakeNow} as an effect. */
  readonly wake: Effect.Effect<void> = Effect.sync(this.wakeNow)

  /** Whether work due at `dueAtMs` must wake the loop: it is due before the loop wakes by itself, or the loop is working. */
  wakesFor(dueAtMs: number): boolean {
    return dueAtMs < this.sleepingUntil || this.sleepingUntil === Number.NEGATIVE_INFINITY
  }

  /** Sleeps until `ms` pass or something wakes the loop (at once if something did while it worked). */
  sleep(ms: number): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      if (this.woken) {
        this.woken = false
        return resume(Effect.void)
      }
      const timer = setTimeout(() => {
        this.waker = undefined
        resume(Effect.void)
      }, ms)
      this.waker = () => {
        this.waker = undefined
        clearTimeout(timer)
        resume(Effect.void)
      }
      return Effect.sync(() => {
        this.waker = undefined
        clearTimeout(timer)
      })
    })
  }
}
