// `pc ... --help` for every command and group, run with the built bin as a user runs it: each has
// an example of itself ("Example: npx pc merchants keys add ..."), and piped help is plain text. The
// commands are the ones `pc --help` lists, so a new command without an example fails here.
import { beforeAll, describe, expect, it } from "vitest"
import { listCommands } from "./support/Commands.js"
import { pc } from "./support/Pc.js"

let commands: Array<ReadonlyArray<string>> = []

beforeAll(async () => {
  commands = await listCommands()
}, 60_000)

describe("pc --help", () => {
  it("lists every command, nested ones too", () => {
    const names = commands.map((path) => path.join(" "))
    for (const name of ["mock", "merchants create", "merchants keys add", "platform-keys rotate", "logs tail"]) {
      expect(names).toContain(name)
    }
    expect(commands.length).toBeGreaterThanOrEqual(33)
  })

  it("has an example of each command in that command's --help, plain when piped", async () => {
    const missing: Array<string> = []
    // A few at a time: each is a process start.
    for (let i = 0; i < commands.length; i += 4) {
      await Promise.all(
        commands.slice(i, i + 4).map(async (path) => {
          const command = ["npx", "pc", ...path].join(" ")
          const ran = await pc([...path, "--help"])
          const example = new RegExp(`^\\s*Example: ${command.replaceAll(" ", "\\s+")}(\\s|$)`, "m")
          if (ran.code !== 0 || !example.test(ran.stdout) || ran.stdout.includes("\u001b")) {
            missing.push(`${command} --help (exit ${ran.code}):\n${ran.stdout}${ran.stderr}`)
          }
        })
      )
    }
    expect(missing).toEqual([])
  }, 240_000)

  it.each([80, 120])(
    "reads at %i columns: no line past the width, no word cut, no command named twice, no boilerplate",
    async (columns) => {
      const words = (text: string) => text.split(/\s+/).filter((word) => word !== "")
      const commandNames = new Set(["pc", ...commands.flat()])
      const problems: Array<string> = []
      for (const path of [[], ...commands.filter((p) => p.length > 0)]) {
        const [narrow, wide] = await Promise.all(
          [columns, 400].map((width) => pc([...path, "--help"], { env: { COLUMNS: String(width) } }))
        )
        const name = ["pc", ...path, "--help"].join(" ")
        for (const line of narrow!.stdout.split("\n")) {
          // A line may pass the width only when it is one word that fits no line.
          if (line.length > columns && words(line).length > 1) problems.push(`${name}: ${line.length} columns: ${line}`)
        }
        // The same words in the same order as at 400 columns: wrapping cut none.
        if (words(narrow!.stdout).join(" ") !== words(wide!.stdout).join(" ")) problems.push(`${name}: words differ`)
        const flat = narrow!.stdout.replace(/\s+/g, " ")
        for (const command of commandNames)
          if (flat.includes(`${command} ${command} `)) problems.push(`${name}: ${command} twice`)
        if (/A true or false value|A user-defined piece of text|This setting is optional/.test(narrow!.stdout)) {
          problems.push(`${name}: @effect/cli boilerplate`)
        }
      }
      expect(problems).toEqual([])
    },
    240_000
  )
})
