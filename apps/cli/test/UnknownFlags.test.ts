// An unknown flag is named as unknown, wherever it stands: @effect/cli alone stopped at it and
// reported the options after it as missing ("Expected to find option: '--order-id'" for an order id
// that was given). Run with the built bin, over every command `pc --help` lists.
import { beforeAll, describe, expect, it } from "vitest"
import { leafCommands, listCommands } from "./support/Commands.js"
import { freshConfigDir, pc } from "./support/Pc.js"

let leaves: Array<ReadonlyArray<string>> = []

/** A scratch profile: nothing here may touch the user's settings. */
const env = { PC_CONFIG_DIR: freshConfigDir() }

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

  it("is named before a --help that the parser would not reach; after --help, help is shown", async () => {
    const ran = await pc(["orders", "create", "--key", "k.pem", "--help"], { env })
    expect(ran.code).toBe(2)
    expect(ran.stdout + ran.stderr).toContain("Received unknown argument: '--key'")
    const help = await pc(["orders", "create", "--help", "--key", "k.pem"], { env })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("--key-file")
  })

  it("leaves to the parser a flag in other case, and a positional value that looks like a flag", async () => {
    const upper = await pc(["config", "show", "--JSON"], { env })
    expect(upper.stdout + upper.stderr).not.toContain("unknown argument")
    expect(upper.code).toBe(0)
    // `config set NAME VALUE`: the value is a positional argument, whatever it looks like.
    const value = await pc(["config", "set", "base-url", "--not-a-flag"], { env })
    expect(value.stdout + value.stderr).not.toContain("unknown argument")
  })

  it("is refused by every command without positional arguments, and every flag a command lists is known to the check", async () => {
    const wrong: Array<string> = []
    let checked = 0
    for (let i = 0; i < leaves.length; i += 4) {
      await Promise.all(
        leaves.slice(i, i + 4).map(async (path) => {
          const help = await pc([...path, "--help"], { env })
          // With positional arguments, `--x` could be one of them: the parser's to judge.
          if (help.stdout.includes("ARGUMENTS")) return
          checked++
          const flags = listedFlags(help.stdout)
          // Every listed flag first: the check would name the first one it did not know.
          const ran = await pc([...path, ...flags, "--no-such-flag"], { env })
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
    expect(checked).toBeGreaterThanOrEqual(10)
  }, 180_000)
})
