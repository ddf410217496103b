// The suite's harness for a shared guard: every guard made is closed after the file's tests.
import { afterAll } from "vitest"
import { openGuard, type OpenGuard, type SharedGuardKind } from "./replayGuards.js"
import type { GuardHarness } from "./replayGuardSuite.js"

export const sharedGuardHarness = (
  kind: SharedGuardKind,
  target: string,
  elapse?: GuardHarness["elapse"]
): GuardHarness => {
  const opened: Array<OpenGuard> = []
  afterAll(() => Promise.all(opened.map((guard) => guard.close())))
  return {
    make: async (options) => {
      const open = await openGuard(kind, target, options)
      opened.push(open)
      return open.guard
    },
    ...(elapse === undefined ? {} : { elapse }),
    shared: { kind, target }
  }
}
