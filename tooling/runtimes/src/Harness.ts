// The part of vitest's API that the shared suites use (`describe`, `it`, `expect`), small enough to
// run in Bun, Deno and workerd: the bundler maps `vitest` to this module, so the suites run there
// unchanged, and `runSuites` hands the results back to the vitest test in Node that asserts them.

/** One case as it ran: its full name (describe titles joined by " > ") and its failure, if any. */
export interface CaseResult {
  readonly name: string
  readonly ok: boolean
  readonly error?: string
}

type Body = () => unknown

interface Case {
  readonly name: string
  readonly body: Body
}

const cases: Array<Case> = []
const titles: Array<string> = []

/** Groups cases; runs `body` at once, as vitest does while it collects. */
export const describe = (title: string, body: () => void): void => {
  titles.push(title)
  try {
    body()
  } finally {
    titles.pop()
  }
}

/** Registers a case; it runs when `runSuites` is called. */
export const it = (title: string, body: Body): void => {
  cases.push({ name: [...titles, title].join(" > "), body })
}

/** The names of every registered case, in order: what a runtime must report back. */
export const caseNames = (): ReadonlyArray<string> => cases.map((c) => c.name)

/** Runs every registered case one after the other; a throw or rejection fails that case only. */
export const runSuites = async (): Promise<ReadonlyArray<CaseResult>> => {
  const results: Array<CaseResult> = []
  for (const c of cases) {
    try {
      await c.body()
      results.push({ name: c.name, ok: true })
    } catch (error) {
      results.push({
        name: c.name,
        ok: false,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error)
      })
    }
  }
  return results
}

const show = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})`
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const deepEqual = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!(ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) || a.constructor !== b.constructor) return false
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
    return x.length === y.length && x.every((byte, i) => byte === y[i])
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return (
    keysA.length === keysB.length &&
    keysA.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  )
}

/** The matchers of one `expect(actual)`; `.not` inverts each. */
export interface Matchers {
  readonly not: Matchers
  toBe(expected: unknown): void
  toEqual(expected: unknown): void
  toContain(expected: unknown): void
  toMatch(expected: RegExp | string): void
  toBeInstanceOf(expected: abstract new (...args: never) => unknown): void
  toBeDefined(): void
  toBeUndefined(): void
  toBeTruthy(): void
}

const matchers = (actual: unknown, message: string | undefined, negated: boolean): Matchers => {
  const check = (pass: boolean, what: string) => {
    if (pass === negated) {
      const text = `expected ${show(actual)} ${negated ? "not " : ""}${what}`
      throw new Error(message === undefined ? text : `${message}: ${text}`)
    }
  }
  return {
    get not() {
      return matchers(actual, message, !negated)
    },
    toBe: (expected) => check(Object.is(actual, expected), `to be ${show(expected)}`),
    toEqual: (expected) => check(deepEqual(actual, expected), `to equal ${show(expected)}`),
    toContain: (expected) =>
      check(
        (typeof actual === "string" && typeof expected === "string" && actual.includes(expected)) ||
          (Array.isArray(actual) && actual.includes(expected)),
        `to contain ${show(expected)}`
      ),
    toMatch: (expected) =>
      check(
        typeof actual === "string" &&
          (typeof expected === "string" ? actual.includes(expected) : expected.test(actual)),
        `to match ${String(expected)}`
      ),
    toBeInstanceOf: (expected) => check(actual instanceof expected, `to be an instance of ${expected.name}`),
    toBeDefined: () => check(actual !== undefined, "to be defined"),
    toBeUndefined: () => check(actual === undefined, "to be undefined"),
    toBeTruthy: () => check(Boolean(actual), "to be truthy")
  }
}

/** `expect(actual, message?)` with the matchers the shared suites use. */
export const expect = (actual: unknown, message?: string): Matchers => matchers(actual, message, false)
