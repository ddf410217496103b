// Fuzzing the callback verifier (issue 9): random and mutated headers and bodies, also around a
// correctly signed callback, always end in the typed CallbackVerificationError (or the event, for
// the untouched signed one), never a throw or a defect. Seeded: FUZZ_SEED replays, FUZZ_RUNS sets
// the number of cases (default 5,000).
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import { expect, it } from "vitest"
import * as Callback from "../src/Callback.js"
import { eventBody, platformKeys, signCallback } from "./support/callbacks.js"
import { APP_KEY } from "./support/vectors.js"

const RUNS = Number(process.env.FUZZ_RUNS ?? 5_000)
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))

const names = ["x-r-ts", "X-R-Ts", "x-r-signature", "X-R-Signature", "x-r-key-version", "content-type", "x-other"]

const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "1",
    "-1",
    "0",
    "1e3",
    "9007199254740993",
    "NaN",
    "\u0000",
    "\uD800",
    "====",
    "A".repeat(344)
  ),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => "7".repeat(n)),
  fc.string({ maxLength: 10 }).map((s) => `${s}\r\n${s}`)
)

/** Bodies: random text, random bytes (invalid UTF-8 too), hostile JSON, and the real event text. */
const body = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)),
  fc.integer({ min: 65, max: 20_000 }).map((d) => "[".repeat(d) + "]".repeat(d)),
  fc.constantFrom(
    '{"__proto__":{"eventId":"x"}}',
    '{"constructor":{"prototype":{}}}',
    '{"eventId":"a","eventId":"b"}',
    "\ufeff{}",
    "{}garbage",
    '{"amount":1e400}',
    '{"amount":-0}'
  ),
  fc.constant(eventBody())
)

/** A header source in any of the shapes HeaderSource allows, repeated values as arrays. */
const headerSource = fc
  .array(fc.tuple(fc.constantFrom(...names), fc.oneof(value, fc.array(value, { maxLength: 3 }))), { maxLength: 6 })
  .chain((entries) =>
    fc.constantFrom(Object.fromEntries(entries), new Map(entries), {
      get: (name: string) =>
        (entries.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1] ?? null) as string | null
    })
  )

it(`turns ${RUNS} random callbacks into the typed error, never a throw`, async () => {
  console.log(`callback fuzz: seed ${SEED}, ${RUNS} runs (replay with FUZZ_SEED=${SEED})`)
  const verifier = await Effect.runPromise(
    Callback.make({ environment: "production", appKey: APP_KEY, platformKeys: await platformKeys })
  )
  const signedBody = eventBody()
  const signed = await signCallback({ key: "platform-production-v1", timestamp: Date.now(), body: signedBody })
  // A correctly signed callback, mutated: one header replaced or removed, or the body changed.
  const mutatedSigned = fc
    .tuple(fc.constantFrom(...Object.keys(signed), "none"), fc.option(value), fc.option(body))
    .map(([name, replacement, newBody]) => {
      const headers: Record<string, string> = { ...signed }
      if (name !== "none") {
        if (replacement === null) delete headers[name]
        else headers[name] = replacement
      }
      return { headers, body: newBody ?? signedBody, untouched: name === "none" && newBody === null }
    })
  const input = fc.oneof(fc.record({ headers: headerSource, body, untouched: fc.constant(false) }), mutatedSigned)
  let cases = 0
  await fc.assert(
    fc.asyncProperty(input, async ({ headers, body: sent, untouched }) => {
      cases++
      const exit = await Effect.runPromiseExit(verifier.verify({ headers, body: sent }))
      if (Exit.isSuccess(exit)) {
        expect(untouched || sent === signedBody).toBe(true)
        return
      }
      // A failure, never a defect or an interruption, and always the documented error class.
      expect(Cause.isFailType(exit.cause)).toBe(true)
      const error = Cause.failureOption(exit.cause)
      expect(error._tag).toBe("Some")
      if (error._tag === "Some") {
        expect(error.value).toBeInstanceOf(Callback.CallbackVerificationError)
        expect(typeof error.value.reason).toBe("string")
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true }
  )
  expect(cases).toBe(RUNS)
}, 300_000)
