// Every `pc` command, as `pc --help` lists them (so a new command is found without a list here).
import { pc } from "./Pc.js"

/** The command paths `pc --help` lists (`["merchants", "keys", "add"]`, ...), the root as `[]` first. */
export const listCommands = async (): Promise<Array<ReadonlyArray<string>>> => {
  const root = await pc(["--help"])
  if (root.code !== 0) throw new Error(`pc --help exited ${root.code}: ${root.stderr}`)
  // pc's own help (Help.ts) lists every command by its full name, one a line: "  npx pc keys generate".
  return [
    [],
    ...[...root.stdout.matchAll(/^ {2}npx pc ([a-z][a-z-]*(?: [a-z][a-z-]*)*)$/gm)].map((m) => m[1]!.split(" "))
  ]
}

/** The commands that do something (not a group of others). */
export const leafCommands = (commands: ReadonlyArray<ReadonlyArray<string>>): Array<ReadonlyArray<string>> =>
  commands.filter(
    (path) =>
      path.length > 0 &&
      !commands.some((other) => other.length > path.length && path.every((name, i) => other[i] === name))
  )
