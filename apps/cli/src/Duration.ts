/**
 * A span of time as the command line writes it (`30m`, `90s`, `2h`, `1d`, `500ms`, or bare
 * milliseconds), for `pc clock advance`.
 */
import * as Either from "effect/Either"
import { CliFailure } from "./Output.js"

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * The milliseconds of `text`, or a usage failure that shows how to write one.
 *
 * @example
 * ```ts
 * parseDuration("30m") // Either.right(1_800_000)
 * ```
 */
export const parseDuration = (text: string): Either.Either<number, CliFailure> => {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim())
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] ?? "ms"]!
  return Number.isSafeInteger(ms) && ms > 0
    ? Either.right(ms)
    : Either.left(
        new CliFailure({
          kind: "Usage",
          message: `not a span of time above 0: ${JSON.stringify(text)}`,
          hint: "write a whole number with a unit: 500ms, 90s, 30m, 2h or 1d"
        })
      )
}
