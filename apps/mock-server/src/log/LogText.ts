/**
 * What request-derived text may go into a log line: header values, paths and causes are capped (a
 * 15 KB header must not become a 15 KB log line), and a defect is written with its message and
 * stack (an Error object serialises to `{}` in logfmt).
 */

/** The longest excerpt of request-derived text a log line carries. */
export const LOG_EXCERPT_CHARS = 200

/**
 * `text` cut to `max` characters, with a marker saying how much was left out.
 *
 * @example
 * ```ts
 * capped("a".repeat(1000)) // "aaaa…(200 of 1000 chars)" — 200 a's, then the marker
 * capped("short") // "short"
 * ```
 */
export const capped = (text: string, max: number = LOG_EXCERPT_CHARS): string =>
  text.length <= max ? text : `${text.slice(0, max)}…(${max} of ${text.length} chars)`

const MAX_STACK_CHARS = 4_000

/**
 * A defect (an unexpected throw) as one line of text: its name, message and stack, bounded; never
 * throws itself, whatever the value.
 *
 * @example
 * ```ts
 * describeDefect(new RangeError("Maximum call stack size exceeded"))
 * // "RangeError: Maximum call stack size exceeded\n    at ..."
 * ```
 */
export const describeDefect = (defect: unknown): string => {
  try {
    if (defect instanceof Error) {
      const head = `${defect.name}: ${defect.message}`
      const stack = typeof defect.stack === "string" ? defect.stack : ""
      return capped(stack.startsWith(head) ? stack : `${head}\n${stack}`, MAX_STACK_CHARS)
    }
    return capped(`non-Error defect: ${typeof defect === "string" ? defect : String(defect)}`, MAX_STACK_CHARS)
  } catch {
    return "a defect that cannot be described"
  }
}
