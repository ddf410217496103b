// One suite for every replay guard (STYLE.md, "One conformance suite per contract"): the in-memory
// guard and each shared store run the same cases; shared stores also race four processes.
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import type * as ReplayGuard from "../../src/ReplayGuard.js"
import { ask, entryOf, type SharedGuardKind, WINDOW_MS } from "./replayGuards.js"

const TTL_MS = 10 * 60 * 1000

export interface GuardHarness {
  /** A guard (on the suite's store, for a shared one), keeping entries `ttlMs` when given. */
  readonly make: (options?: { readonly ttlMs?: number }) => Promise<ReplayGuard.ReplayGuard>
  /**
   * Lets `ms` pass for `key` in a store that counts time itself (Redis). Absent where the guard
   * takes the time from the entry's `receivedAt` (memory, SQL): there a later entry is later.
   */
  readonly elapse?: (key: string, ms: number) => Promise<void>
  /** How a worker process opens the same shared guard; absent for a guard of one process. */
  readonly shared?: { readonly kind: SharedGuardKind; readonly target: string }
}

const worker = fileURLToPath(new URL("./replayGuardWorker.ts", import.meta.url))
const packageDir = fileURLToPath(new URL("../..", import.meta.url))

interface Racer {
  readonly go: () => void
  readonly accepted: Promise<Array<string>>
}

/** Starts one receiver process; resolves once its guard is open. */
const startRacer = (
  shared: NonNullable<GuardHarness["shared"]>,
  keys: ReadonlyArray<string>,
  now: number
): Promise<Racer> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", worker], {
      cwd: packageDir,
      env: {
        ...process.env,
        PC_GUARD_KIND: shared.kind,
        PC_GUARD_TARGET: shared.target,
        PC_GUARD_KEYS: JSON.stringify(keys),
        PC_GUARD_NOW: String(now)
      },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let ready = false
    let settleAccepted: (keys: Array<string>) => void = () => {}
    let failAccepted: (error: Error) => void = () => {}
    const accepted = new Promise<Array<string>>((res, rej) => {
      settleAccepted = res
      failAccepted = rej
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      if (!ready && stdout.startsWith("ready\n")) {
        ready = true
        resolve({ go: () => child.stdin.end("go\n"), accepted })
      }
    })
    child.once("error", reject)
    child.once("close", (code) => {
      const result = stdout.split("\n")[1]
      if (code === 0 && result !== undefined && result !== "") settleAccepted(JSON.parse(result) as Array<string>)
      else {
        const error = new Error(`guard worker exited ${code}: ${stderr}`)
        if (!ready) reject(error)
        failAccepted(error)
      }
    })
  })

export const describeReplayGuard = (name: string, harness: GuardHarness) =>
  describe(`replay guard contract: ${name}`, () => {
    const unique = () => `78e6ac0e:production:${randomUUID()}`

    it("accepts a delivery the first time and refuses it after; other deliveries pass", async () => {
      const guard = await harness.make()
      const now = Date.now()
      const [a, b] = [unique(), unique()]
      expect(await ask(guard, entryOf(a, now))).toBe(false)
      expect(await ask(guard, entryOf(a, now + 1000))).toBe(true)
      expect(await ask(guard, entryOf(b, now + 1000))).toBe(false)
      expect(await ask(guard, entryOf(b, now + 2000))).toBe(true)
    })

    it("keeps a delivery for ttlMs (default 10 minutes) after it arrived, then accepts it again", async () => {
      const guard = await harness.make()
      const now = Date.now()
      const key = unique()
      expect(await ask(guard, entryOf(key, now))).toBe(false)
      // A margin of a second either side: a store that counts time itself has seen some pass.
      await harness.elapse?.(key, TTL_MS - 1000)
      expect(await ask(guard, entryOf(key, now + TTL_MS - 1000))).toBe(true)
      await harness.elapse?.(key, 2000)
      expect(await ask(guard, entryOf(key, now + TTL_MS + 1000))).toBe(false)
      expect(await ask(guard, entryOf(key, now + TTL_MS + 2000))).toBe(true)
    })

    it("never forgets a delivery before its timestamp leaves the window, whatever the ttl", async () => {
      const guard = await harness.make({ ttlMs: WINDOW_MS })
      const now = Date.now()
      const key = unique()
      // X-R-Ts 4 minutes ahead of this clock stays in the window until 9 minutes from now.
      expect(await ask(guard, entryOf(key, now, now + 4 * 60_000))).toBe(false)
      await harness.elapse?.(key, 8 * 60_000)
      expect(await ask(guard, entryOf(key, now + 8 * 60_000, now + 4 * 60_000))).toBe(true)
      await harness.elapse?.(key, 2 * 60_000)
      expect(await ask(guard, entryOf(key, now + 10 * 60_000, now + 4 * 60_000))).toBe(false)
    })

    it("refuses a ttl shorter than the window", async () => {
      await expect(harness.make({ ttlMs: 60_000 })).rejects.toThrow(/at least the 300000 ms window/)
    })

    it("50 concurrent asks about one delivery in one process: exactly one accepts", async () => {
      const guard = await harness.make()
      const now = Date.now()
      const key = unique()
      const answers = await Promise.all(Array.from({ length: 50 }, () => ask(guard, entryOf(key, now))))
      expect(answers.filter((seen) => !seen)).toHaveLength(1)
    })

    const shared = harness.shared
    if (shared !== undefined) {
      it("four processes race the same 100 deliveries: each is accepted by exactly one", async () => {
        const keys = Array.from({ length: 100 }, unique)
        const now = Date.now()
        const racers = await Promise.all(Array.from({ length: 4 }, () => startRacer(shared, keys, now)))
        // All four have their guard open before any asks: the asks overlap.
        for (const racer of racers) racer.go()
        const accepted = await Promise.all(racers.map((racer) => racer.accepted))
        const all = accepted.flat()
        expect(all).toHaveLength(keys.length)
        expect(new Set(all)).toEqual(new Set(keys))
        // And afterwards every one of them is a replay here too.
        const guard = await harness.make()
        for (const key of keys.slice(0, 10)) expect(await ask(guard, entryOf(key, now + 1000))).toBe(true)
      }, 60_000)
    }
  })
