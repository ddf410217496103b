// log/LogFmt.ts writes exactly the line Effect's own logfmt logger writes, for any message,
// annotations, spans and cause.
import { Cause, FiberId, HashMap, List, Logger, LogLevel, LogSpan } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { logfmtLogger } from "../src/log/LogFmt.js"

const anyText = fc.oneof(
  fc.string(),
  fc.constantFrom("request", "", "a b", 'say "hi"', "k=v", "tab\there", "line\nbreak", "ünïcödé", "#12")
)
const anyValue = fc.oneof(
  anyText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.record({ a: fc.integer(), b: anyText }),
  fc.array(fc.integer(), { maxLength: 3 })
)

describe("logfmtLogger", () => {
  it("writes the same line as Effect's logfmt logger, without an empty fiber= field", () => {
    fc.assert(
      fc.property(
        fc.record({
          message: fc.oneof(anyValue, fc.array(anyValue, { maxLength: 3 })),
          annotations: fc.array(fc.tuple(anyText, anyValue), { maxLength: 6 }),
          spans: fc.array(fc.tuple(anyText, fc.nat({ max: 10_000 })), { maxLength: 2 }),
          level: fc.constantFrom(LogLevel.Info, LogLevel.Warning, LogLevel.Error, LogLevel.Debug),
          fiber: fc.option(fc.nat({ max: 1000 }), { nil: undefined }),
          failure: fc.option(anyText, { nil: undefined }),
          at: fc.integer({ min: 0, max: 4_000_000_000_000 })
        }),
        ({ message, annotations, spans, level, fiber, failure, at }) => {
          const date = new Date(at)
          const options: Logger.Logger.Options<unknown> = {
            fiberId: fiber === undefined ? FiberId.none : FiberId.make(fiber, 0),
            logLevel: level,
            message,
            cause: failure === undefined ? Cause.empty : Cause.fail(failure),
            context: undefined as never,
            spans: List.fromIterable(spans.map(([label, ago]) => LogSpan.make(label, at - ago))),
            annotations: HashMap.fromIterable(annotations),
            date
          }
          // Effect's line, less the empty `fiber=` of a line without a fiber (the line's last field
          // when there is no message, span, annotation or cause).
          const effects = Logger.logfmtLogger.log(options)
          expect(logfmtLogger.log(options)).toBe(fiber === undefined ? effects.replace(/ fiber=(?= |$)/, "") : effects)
        }
      ),
      { numRuns: 500 }
    )
  })
})
