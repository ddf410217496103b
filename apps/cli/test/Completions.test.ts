// `pc --completions bash` loaded in a real bash: the function it registers for `pc` (read back with
// `complete -p pc`) is called as bash calls it on Tab, with COMP_WORDS and COMP_CWORD, and must
// complete commands, nested subcommands, flags and flag choices.
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { pc } from "./support/Pc.js"

let script: string

beforeAll(async () => {
  const ran = await pc(["--completions", "bash"])
  expect(ran.code, ran.stderr).toBe(0)
  script = join(mkdtempSync(join(tmpdir(), "pc-completions-")), "pc.bash")
  writeFileSync(script, ran.stdout)
}, 60_000)

/** What bash offers on Tab after `line` (the last word is the one being completed; "" after a space). */
const complete = (line: string): Array<string> => {
  const words = line.split(" ")
  const program = [
    `source ${JSON.stringify(script)}`,
    // The function bash itself would call for pc, as registered by the script.
    `spec=$(complete -p pc) || exit 9`,
    `fn=$(sed -E 's/.* -F ([^ ]+) .*/\\1/' <<<"$spec")`,
    `COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(" ")})`,
    `COMP_CWORD=${words.length - 1}`,
    `COMP_LINE=${JSON.stringify(line)}`,
    `COMP_POINT=${line.length}`,
    `COMPREPLY=()`,
    `"$fn" pc "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"`,
    `printf '%s\\n' "\${COMPREPLY[@]}"`
  ].join("\n")
  const ran = spawnSync("bash", ["--norc", "--noprofile", "-c", program], { encoding: "utf8" })
  expect(ran.status, ran.stderr).toBe(0)
  return ran.stdout.split("\n").filter((word) => word !== "")
}

describe("pc --completions bash", () => {
  it("completes `pc mer` to merchants", () => {
    expect(complete("pc mer")).toEqual(["merchants"])
  })

  it("completes the subcommands of `pc merchants `, and of `pc merchants keys `", () => {
    const merchants = complete("pc merchants ")
    expect(merchants).toEqual(expect.arrayContaining(["create", "show", "keys"]))
    expect(merchants).not.toContain("listen")
    const keys = complete("pc merchants keys ")
    expect(keys).toEqual(expect.arrayContaining(["add", "disable"]))
    expect(keys).not.toContain("create")
  })

  it("completes a hyphenated command's subcommands, flags and their choices", () => {
    expect(complete("pc pla")).toEqual(["platform-keys"])
    expect(complete("pc platform-keys ")).toEqual(expect.arrayContaining(["list", "rotate"]))
    expect(complete("pc merchants create --gen")).toEqual(["--generate-key"])
    expect(complete("pc keys generate --bits ")).toEqual(["2048", "3072", "4096"])
    expect(complete("pc listen --trigger order.p")).toEqual(["order.paid"])
    expect(complete("pc mock --env ")).toEqual(["sandbox", "production", "gray"])
  })
})
