// The mock's heap limits (process/ServerHeap.ts), in processes of their own: the new space stops
// growing at the cap under a server-like allocation pattern, where V8 left alone grows it further,
// and flags the user gave win over ours.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const child = fileURLToPath(new URL("./support/HeapChild.ts", import.meta.url))

const largestNewSpaceMb = async (mode: "limit" | "none", nodeFlags: ReadonlyArray<string> = []): Promise<number> => {
  const { stdout: out } = await promisify(execFile)(process.execPath, [...nodeFlags, "--import", "tsx", child, mode], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  return (JSON.parse(out.trim().split("\n").at(-1)!) as { largestNewSpaceMb: number }).largestNewSpaceMb
}

describe("limitServerHeap", () => {
  it("keeps the new space at two semi-spaces of the cap, where V8 alone grows it past them", async () => {
    // HeapChild caps at 4 MB per semi-space: 8 MB in all, where V8 alone goes on to 32.
    expect(await largestNewSpaceMb("none")).toBeGreaterThan(8)
    expect(await largestNewSpaceMb("limit")).toBeLessThanOrEqual(8)
  }, 60_000)

  it("changes nothing when the user sized the young generation", async () => {
    expect(await largestNewSpaceMb("limit", ["--max-semi-space-size=8"])).toBeGreaterThan(8)
  }, 60_000)
})
