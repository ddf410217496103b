// An unknown flag is named as unknown, wherever it stands: @effect/cli alone stopped at it and
// reported the options after it as missing ("Expected to find option: '--order-id'" for an order id
// that was given). Run with the built bin, over every command `pc --help` lists.
import { beforeAll, describe, expect, it } from "vitest"
import { leafCommands, listCommands } from "./support/Commands.js"
import { pc } from "./support/Pc.js"

let leaves: Array<ReadonlyArray<string>> = []

beforeAll(async () => {
  leaves = leafCommands(await listCommands())
}, 60_000)

/** @effect/cli's own flags: with one of them on the line, the parser answers (help, version...). */
const BUILT_IN = new Set(["--help", "--version", "--wizard", "--completions", "--log-level"])

/**
 * The flags a command's --help lists under OPTIONS, built-ins aside, each as it can be written on a
 * line: `--base-url=x` for a flag with a value (`--base-url text`), bare for a switch (`--json`).
 */
const listedFlags = (help: string): Array<string> =>
  [...help.matchAll(/^(--[a-z][a-z0-9-]*)( \S.*)?$/gm)]
    .filter((m) => !BUILT_IN.has(m[1]!))
    .map((m) => (m[2] === undefined ? m[1]! : `${m[1]}=x`))

describe("an unknown flag", () => {
  it("is named before the options after it, with what was likely meant", async () => {
    const ran = await pc([
      "orders",
      "create",
      "--key",
      "k.pem",
      "--order-id",
      "M-1",
      "--amount",
      "1",
      "--currency",
      "USD"
    ])
    expect(ran.code).toBe(2)
    const output = ran.stdout + ran.stderr
    expect(output).toContain("Received unknown argument: '--key'. Did you mean '--key-file' or '--key-version'?")
    expect(output).not.toContain("Expected to find option")
  })

  it("a flag's value is never taken for a flag, nor repeated back", async () => {
    const ran = await pc(["orders", "create", "--order-id", "--M-1", "--amount", "1", "--currency", "USD", "--nope"])
    expect(ran.code).toBe(2)
    const output = ran.stdout + ran.stderr
    expect(output).toContain("Received unknown argument: '--nope'")
    expect(output).not.toContain("M-1")
  })

  it("a typo away from a flag suggests that flag", async () => {
    const ran = await pc(["orders", "create", "--ordr-id", "M-1", "--amount", "1", "--currency", "USD"])
    expect(ran.code).toBe(2)
    expect(ran.stdout + ran.stderr).toContain("Received unknown argument: '--ordr-id'. Did you mean '--order-id'?")
  })

  it("is named even beside --help, which the parser never reached past it", async () => {
    const ran = await pc(["orders", "create", "--key", "k.pem", "--help"])
    expect(ran.code).toBe(2)
    expect(ran.stdout + ran.stderr).toContain("Received unknown argument: '--key'")
    const help = await pc(["orders", "create", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("--key-file")
  })

  it("is refused by every command, and every flag a command lists is known to the check", async () => {
    expect(leaves.length).toBeGreaterThanOrEqual(20)
    const wrong: Array<string> = []
    for (let i = 0; i < leaves.length; i += 4) {
      await Promise.all(
        leaves.slice(i, i + 4).map(async (path) => {
          const help = await pc([...path, "--help"])
          const flags = listedFlags(help.stdout)
          // Every listed flag first: the check would name the first one it did not know.
          const ran = await pc([...path, ...flags, "--no-such-flag"])
          const output = ran.stdout + ran.stderr
          if (
            ran.code !== 2 ||
            !output.includes("Received unknown argument: '--no-such-flag'") ||
            output.includes("Expected to find option")
          ) {
            wrong.push(`pc ${path.join(" ")} (flags ${flags.join(" ")}): exit ${ran.code}\n${output}`)
          }
        })
      )
    }
    expect(wrong).toEqual([])
  }, 180_000)
})
