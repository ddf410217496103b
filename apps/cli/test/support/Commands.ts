// Every `pc` command, as `pc --help` lists them (so a new command is found without a list here).
import { pc } from "./Pc.js"

/** The command paths `pc --help` lists (`["merchants", "keys", "add"]`, ...), the root as `[]` first. */
export const listCommands = async (): Promise<Array<ReadonlyArray<string>>> => {
  const root = await pc(["--help"])
  if (root.code !== 0) throw new Error(`pc --help exited ${root.code}: ${root.stderr}`)
  // "  - keys generate [--bits ...] ...   Generate ...": the command is the leading names. @effect/cli
  // 0.77 lists a nested group's commands with the group's name twice ("merchants merchants keys add").
  return [
    [],
    ...[...root.stdout.matchAll(/^ {2}- ([a-z][a-z-]*(?: [a-z][a-z-]*)*)(?= |$)/gm)].map((m) =>
      m[1]!.split(" ").filter((name, i, all) => name !== all[i - 1])
    )
  ]
}

/** The commands that do something (not a group of others). */
export const leafCommands = (commands: ReadonlyArray<ReadonlyArray<string>>): Array<ReadonlyArray<string>> =>
  commands.filter(
    (path) =>
      path.length > 0 &&
      !commands.some((other) => other.length > path.length && path.every((name, i) => other[i] === name))
  )
