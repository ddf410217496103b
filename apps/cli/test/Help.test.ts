// `pc ... --help` for every command and group, run with the built bin as a user runs it: each has
// an example of itself ("Example: pc merchants keys add ..."), and piped help is plain text. The
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
          const command = ["pc", ...path].join(" ")
          const ran = await pc([...path, "--help"])
          const example = new RegExp(`^Example: ${command.replaceAll(" ", "\\s")}(\\s|$)`, "m")
          if (ran.code !== 0 || !example.test(ran.stdout) || ran.stdout.includes("\u001b")) {
            missing.push(`${command} --help (exit ${ran.code}):\n${ran.stdout}${ran.stderr}`)
          }
        })
      )
    }
    expect(missing).toEqual([])
  }, 240_000)
})
