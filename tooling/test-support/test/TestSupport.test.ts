// The shared helpers do what the process and README tests rely on: a free port is free, the probe
// tells listening from not, polling gives up naming what did not happen, a command's whole process
// group ends with it or with killAll, and README blocks are found by their marker.
import { createServer } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import {
  accepting,
  background,
  blockAfter,
  blocksOf,
  freePort,
  killAll,
  npmInstallNames,
  ok,
  publicPackages,
  run,
  until
} from "../src/index.js"

afterEach(killAll)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("loopback", () => {
  it("a free port can be listened on, and accepting tells a listener from none", async () => {
    const port = await freePort()
    expect(await accepting(port)).toBe(false)
    const server = createServer().listen(port, "127.0.0.1")
    await new Promise((resolve) => server.once("listening", resolve))
    expect(await accepting(port)).toBe(true)
    await new Promise((resolve) => server.close(resolve))
    expect(await accepting(port)).toBe(false)
  })
})

describe("until", () => {
  it("resolves the first defined value, and names what did not happen", async () => {
    let calls = 0
    expect(await until(() => (++calls >= 3 ? calls : undefined), "three calls", { intervalMs: 1 })).toBe(3)
    await expect(until(() => undefined, "never", { timeoutMs: 20, intervalMs: 1 })).rejects.toThrow(
      "timed out after 20 ms waiting for never"
    )
  })
})

describe("processes", () => {
  it("run collects stdout, stderr, the exit code and standard input", async () => {
    const finished = await run("sh", ["-c", 'read line; echo "out $line"; echo err >&2; exit 3'], { input: "hi\n" })
    expect(finished).toMatchObject({ code: 3, stdout: "out hi\n", stderr: "err\n" })
    await expect(ok("sh", ["-c", "echo no; exit 1"])).rejects.toThrow(/exited 1\nno/)
  })

  it("a finished command's leftover grandchild ends with it", async () => {
    const finished = await ok("sh", ["-c", "sleep 60 & echo $!"])
    const grandchild = Number(finished.stdout.trim())
    await until(() => (alive(grandchild) ? undefined : true), "the grandchild ended", { timeoutMs: 10_000 })
  })

  it("killAll ends a background command's whole group, grandchildren too (as after a failed assertion)", async () => {
    const server = background("sh", ["-c", "sleep 60 & echo $!; wait"])
    const line = await server.waitForLine((text) => /^\d+$/.test(text), "the grandchild's pid")
    expect(alive(Number(line))).toBe(true)
    killAll()
    await server.exited
    await until(() => (alive(Number(line)) ? undefined : true), "the grandchild ended", { timeoutMs: 10_000 })
  })

  it("waitForOutput rejects with the output when the command exits first", async () => {
    const quitter = background("sh", ["-c", "echo bye; exit 2"])
    await expect(quitter.waitForOutput(/ready/, "its ready line")).rejects.toThrow(/exited before its ready line:\nbye/)
    expect(await quitter.exited).toBe(2)
  })
})

describe("README blocks", () => {
  const readme = [
    "# Title",
    "",
    "npm i @pc/client effect@^3 --save # and a comment",
    "",
    "<!-- example: one -->",
    "```ts",
    "const a = 1",
    "```",
    "",
    "<!-- quickstart -->",
    "```sh",
    "npm init -y",
    "cat > x.mjs <<'EOF'",
    "EOF",
    "```",
    "",
    "<!-- example: two -->",
    "```js",
    "two()",
    "```",
    ""
  ].join("\n")

  it("finds blocks by kind and name, or by their exact marker", () => {
    expect(blocksOf(readme, "example")).toEqual([
      { name: "one", lang: "ts", code: "const a = 1\n" },
      { name: "two", lang: "js", code: "two()\n" }
    ])
    expect(blockAfter(readme, "quickstart")).toBe("npm init -y\ncat > x.mjs <<'EOF'\nEOF\n")
    expect(() => blockAfter(readme, "missing")).toThrow("found 0")
    expect(npmInstallNames(readme)).toEqual(["@pc/client", "effect@^3"])
  })
})

describe("workspace", () => {
  it("lists the public packages of packages/* and apps/*, not the private ones", () => {
    const root = new URL("../../../", import.meta.url).pathname
    expect(publicPackages(root)).toEqual({
      "@pc/cli": "apps/cli",
      "@pc/client": "packages/client",
      "@pc/core": "packages/core",
      "@pc/crypto-node": "packages/crypto-node",
      "@pc/crypto-web": "packages/crypto-web",
      "@pc/mock-server": "apps/mock-server"
    })
  })
})
