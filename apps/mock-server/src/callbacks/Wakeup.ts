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
  /** Re-arms the current sleep's timer to end after the given ms; undefined while the loop works. */
  private rearm: ((ms: number) => void) | undefined = undefined
  /** The earliest time something asked the loop to be up by while it worked; +Infinity when nothing did. */
  private upByMs = Number.POSITIVE_INFINITY
  /** When the sleeping loop wakes up by itself; -Infinity while it is working. */
  sleepingUntil = Number.NEGATIVE_INFINITY

  /** Ends the loop's sleep now, or (while it works) the next one at once. Plain: callable without a fiber. */
  readonly wakeNow = (): void => {
    if (this.waker !== undefined) this.waker()
    else this.woken = true
  }

  /**
   * Has the loop up by `atMs` at the latest, without waking it now: a sleep that would last longer
   * ends then instead, and (while it works) the next sleep does. An ended attempt asks this rather
   * than a wake-up, so that the ends of a batch are recorded together, not one turn each.
   */
  wakeBy(atMs: number, nowMs: number): void {
    if (this.rearm === undefined) this.upByMs = Math.min(this.upByMs, atMs)
    else if (atMs < this.sleepingUntil) {
      this.sleepingUntil = atMs
      this.rearm(Math.max(0, atMs - nowMs))
    }
  }

  /** {@link wakeNow} as an effect. */
  readonly wake: Effect.Effect<void> = Effect.sync(this.wakeNow)

  /** Whether work due at `dueAtMs` must wake the loop: it is due before the loop wakes by itself, or the loop is working. */
  wakesFor(dueAtMs: number): boolean {
    return dueAtMs < this.sleepingUntil || this.sleepingUntil === Number.NEGATIVE_INFINITY
  }

  /**
   * Sleeps until `ms` pass or something wakes the loop (at once if something did while it worked),
   * or earlier if something asked to have the loop up sooner ({@link wakeBy}: `sleepingUntil` is
   * the end of this sleep in the same clock).
   */
  sleep(ms: number): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      const upByMs = this.upByMs
      this.upByMs = Number.POSITIVE_INFINITY
      if (this.woken) {
        this.woken = false
        return resume(Effect.void)
      }
      const end = () => {
        this.waker = undefined
        this.rearm = undefined
        resume(Effect.void)
      }
      let after = ms
      if (upByMs < this.sleepingUntil) {
        after = Math.max(0, ms - (this.sleepingUntil - upByMs))
        this.sleepingUntil = upByMs
      }
      let timer = setTimeout(end, after)
      this.waker = () => {
        clearTimeout(timer)
        end()
      }
      this.rearm = (after) => {
        clearTimeout(timer)
        timer = setTimeout(end, after)
      }
      return Effect.sync(() => {
        this.waker = undefined
        this.rearm = undefined
        clearTimeout(timer)
      })
    })
  }
}
