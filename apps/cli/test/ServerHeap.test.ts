// The mock's heap limits (process/ServerHeap.ts), in processes of their own: the new space stops
// growing at the cap under a server-like allocation pattern, where V8 left alone grows it further,
// the flags are V8's own again once released, and flags the user gave win over ours.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const child = fileURLToPath(new URL("./support/HeapChild.ts", import.meta.url))

interface HeapRun {
  readonly largestNewSpaceMb: number
  readonly cacheTaken: boolean
}

const heapRun = async (mode: "limit" | "none", nodeFlags: ReadonlyArray<string> = []): Promise<HeapRun> => {
  const { stdout: out } = await promisify(execFile)(process.execPath, [...nodeFlags, "--import", "tsx", child, mode], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  return JSON.parse(out.trim().split("\n").at(-1)!) as HeapRun
}

const largestNewSpaceMb = async (mode: "limit" | "none", nodeFlags: ReadonlyArray<string> = []): Promise<number> =>
  (await heapRun(mode, nodeFlags)).largestNewSpaceMb

describe("limitServerHeap", () => {
  it("keeps the new space at two semi-spaces of the cap, where V8 alone grows it past them", async () => {
    // HeapChild caps at 4 MB per semi-space: 8 MB in all, where V8 alone goes on to 32 (64 on
    // Node 24). On Node 24 it also checks that no full GC's marking takes the new space past the cap.
    expect(await largestNewSpaceMb("none")).toBeGreaterThan(8)
    expect(await largestNewSpaceMb("limit")).toBeLessThanOrEqual(8)
  }, 60_000)

  it("gives V8 its flags back when released, so that the code cache written at exit is taken", async () => {
    expect((await heapRun("limit")).cacheTaken).toBe(true)
  }, 60_000)

  it("changes nothing when the user sized the young generation", async () => {
    expect(await largestNewSpaceMb("limit", ["--max-semi-space-size=8"])).toBeGreaterThan(8)
  }, 60_000)
})
