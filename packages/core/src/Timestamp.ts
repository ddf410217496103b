/**
 * Request and callback timestamps: milliseconds since the Unix epoch, sent as integer text, and the
 * +-5 minute window both directions are checked against (spec 8). Pure: "now" is always an argument.
 *
 * @since 0.1.0
 */

/**
 * The tolerance on either side of "now", in milliseconds: 5 minutes.
 *
 * @example
 * ```ts
 * import { Timestamp } from "@pc/core"
 *
 * Timestamp.WINDOW_MS // 300000
 * Timestamp.checkWindow(1763712000000, 1763712000000 + Timestamp.WINDOW_MS).ok // true: the bounds are included
 * ```
 */
export const WINDOW_MS = 5 * 60 * 1000

/**
 * The outcome of {@link checkWindow}. `skewMs` is `timestamp - now`: positive when the sender's clock runs ahead.
 *
 * @example
 * ```ts
 * import { Timestamp } from "@pc/core"
 *
 * const check: Timestamp.WindowCheck = Timestamp.checkWindow(1763712030000, 1763712000000)
 * // { ok: true, skewMs: 30000 }: the sender's clock is 30 s ahead, inside the window
 * ```
 */
export type WindowCheck =
  | { readonly ok: true; readonly skewMs: number }
  | { readonly ok: false; readonly skewMs: number; readonly message: string }

/**
 * Checks that a timestamp lies within +-{@link WINDOW_MS} of `now` (bounds included).
 *
 * @example
 * ```ts
 * import { Timestamp } from "@pc/core"
 *
 * Timestamp.checkWindow(1763712000000, 1763712000000 + 301_000)
 * // { ok: false, skewMs: -301000, message: "timestamp is 301 s behind the server clock, outside the 5 minute window" }
 * ```
 */
export const checkWindow = (timestamp: number, now: number, windowMs: number = WINDOW_MS): WindowCheck => {
  const skewMs = timestamp - now
  if (Math.abs(skewMs) <= windowMs) return { ok: true, skewMs }
  // Rounded up, so a refused skew never reads as exactly the window.
  const seconds = Math.ceil(Math.abs(skewMs) / 1000)
  const direction = skewMs < 0 ? "behind" : "ahead of"
  const window = windowMs % 60_000 === 0 ? `${windowMs / 60_000} minute` : `${windowMs / 1000} second`
  return {
    ok: false,
    skewMs,
    message: `timestamp is ${seconds} s ${direction} the server clock, outside the ${window} window`
  }
}

/**
 * Parses the integer text of `X-R-TS` / `X-R-Ts`: ASCII digits only, no sign, no leading zero, a
 * safe integer. Returns `undefined` for anything else (seconds instead of milliseconds are
 * accepted here and caught by the window check, which names the skew).
 *
 * @example
 * ```ts
 * import { Timestamp } from "@pc/core"
 *
 * Timestamp.parse("1763712000000") // 1763712000000
 * Timestamp.parse("1.7e12") // undefined
 * ```
 */
export const parse = (text: string): number | undefined => {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) return undefined
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : undefined
}
