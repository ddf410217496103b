/**
 * Shell completion scripts come from `@effect/cli` (`pc --completions bash|zsh|fish`). Its bash
 * script (0.77) labels the cases that track which subcommand was typed as `pc,merchants,keys` and
 * `pc,platform__keys`, while the word it matches them against is `pc__merchants,keys` and
 * `pc,platform-keys`: past the first level, and for any name with a hyphen, bash completed the
 * parent's words instead. And it offers a flag's choices as one word (`compgen -W "2048,3072,4096"`)
 * where compgen splits words on spaces. `bashCompletions` is that script with the labels written as
 * matched and the choices as separate words.
 */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"

/** A case label of the subcommand tracker: `    pc,merchants,keys)` followed by its `cmd="..."` line. */
const trackerLabel = /^(\s+)([A-Za-z0-9_]+(?:,[A-Za-z0-9_]+)+)\)$/

/** A flag's choices for compgen, joined by commas: `compgen -W "sandbox,production,gray" -- "${cur}"`. */
const commaChoices = /compgen -W "([^" ]*,[^" ]*)" -- "\$\{cur\}"/

/**
 * Corrects the subcommand tracker's labels in @effect/cli's bash script: the parent's function name
 * (names joined by `__`, hyphens as `__`) then the word as typed. Labels already in that form are
 * left as they are. Splits a flag's comma-joined choices into words.
 *
 * @example
 * ```ts
 * import { fixBashScript } from "./Completions.js"
 *
 * fixBashScript(["            pc,merchants,keys)"]) // ["            pc__merchants,keys)"]
 * ```
 */
export const fixBashScript = (lines: ReadonlyArray<string>): Array<string> =>
  lines.map((line) => {
    const choices = commaChoices.exec(line)
    if (choices !== null) return line.replace(choices[1]!, choices[1]!.replaceAll(",", " "))
    const match = trackerLabel.exec(line)
    if (match === null) return line
    const parts = match[2]!.split(",")
    const typed = parts.at(-1)!.replaceAll("__", "-")
    return `${match[1]}${parts.slice(0, -1).join("__")},${typed})`
  })

/**
 * The bash completion script of a command tree, as `--completions bash` prints it.
 *
 * @example
 * ```ts
 * import { bashCompletions } from "./Completions.js"
 *
 * bashCompletions(pc).pipe(Effect.flatMap(Console.log))
 * ```
 */
export const bashCompletions = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  executable: string
): Effect.Effect<string> =>
  Effect.map(Command.getBashCompletions(command, executable), (lines) => fixBashScript(lines).join("\n"))

/**
 * Whether `argv` asks for the bash script (`--completions bash` or `sh`, where `Command.run` would
 * print the root's script too); the other shells, and every other command line, go to `Command.run`.
 *
 * @example
 * ```ts
 * import { bashCompletionsRequested } from "./Completions.js"
 *
 * bashCompletionsRequested(["node", "pc", "--completions", "bash"]) // true
 * ```
 */
export const bashCompletionsRequested = (argv: ReadonlyArray<string>): boolean => {
  const args = argv.slice(2)
  const at = args.indexOf("--completions")
  return at >= 0 && (args[at + 1] === "bash" || args[at + 1] === "sh")
}
