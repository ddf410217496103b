/**
 * An unknown flag, named as such. @effect/cli (0.77) matches a command's options from the head of
 * the command line and stops at the first flag it does not know: `pc orders create --key k.pem
 * --order-id M-1 ...` was answered "Expected to find option: '--order-id'" for an order id that was
 * given, while the mistake was `--key` (for `--key-file`). This finds such a flag before the parser
 * runs, from the options the command itself declares.
 */
import * as CommandDescriptor from "@effect/cli/CommandDescriptor"
import type * as Usage from "@effect/cli/Usage"

/** Flags every command takes (@effect/cli's built-in options). */
const BUILT_IN = new Set(["--help", "-h", "--version", "--wizard", "--completions", "--log-level"])

/**
 * The parts of a command descriptor this module reads. @effect/cli does not expose a nested
 * subcommand's own descriptor, so the tree is read from these fields, and any shape not listed here
 * means "no verdict": the parser then answers as before.
 */
type Node =
  | { readonly _tag: "Standard"; readonly name: string }
  | { readonly _tag: "GetUserInput"; readonly name: string }
  | { readonly _tag: "Map"; readonly command: Node }
  | { readonly _tag: "Subcommands"; readonly parent: Node; readonly children: ReadonlyArray<Node> }

const isNode = (value: unknown): value is Node => {
  if (typeof value !== "object" || value === null || !("_tag" in value)) return false
  switch (value._tag) {
    case "Standard":
    case "GetUserInput":
      return "name" in value && typeof value.name === "string"
    case "Map":
      return "command" in value && isNode(value.command)
    case "Subcommands":
      return "parent" in value && isNode(value.parent) && "children" in value && Array.isArray(value.children)
    default:
      return false
  }
}

const nameOf = (node: Node): string =>
  node._tag === "Map" ? nameOf(node.command) : node._tag === "Subcommands" ? nameOf(node.parent) : node.name

const unwrap = (node: Node): Node => (node._tag === "Map" ? unwrap(node.command) : node)

/** The flags (with their `--` or `-`) in a usage tree, each with whether it takes a value. */
const flagsOf = (usage: Usage.Usage): Array<readonly [string, boolean]> => {
  switch (usage._tag) {
    case "Named":
      return usage.names
        .filter((name) => name.startsWith("-"))
        .map((name) => [name, usage.acceptedValues._tag === "Some"] as const)
    case "Optional":
    case "Repeated":
      return flagsOf(usage.usage)
    case "Alternation":
    case "Concat":
      return [...flagsOf(usage.left), ...flagsOf(usage.right)]
    default:
      return []
  }
}

/** A word that is a long flag (`--key`, `--key=k.pem`), not a value that begins with dashes (`-----BEGIN`). */
const LONG_FLAG = /^(--[A-Za-z0-9][A-Za-z0-9-]*)(=|$)/

/**
 * The first flag of `args` (the words after the executable, starting with the root command's
 * subcommand) that the chosen command does not declare, with the declared flags it most likely
 * meant; `undefined` when every flag is known (without regard to case, as the parser matches them),
 * when an unknown one comes after a built-in such as `--help`, when the command takes positional
 * arguments (`--x` could be one), when the words name a group rather than a command, or when the
 * descriptor has a shape this module does not know.
 *
 * @example
 * ```ts
 * import { unknownFlag } from "./UnknownFlags.js"
 *
 * unknownFlag(pc.descriptor, ["orders", "create", "--key", "k.pem", "--order-id", "M-1"])
 * // { flag: "--key", suggestions: ["--key-file", "--key-version"] }
 * ```
 */
export const unknownFlag = (
  descriptor: unknown,
  args: ReadonlyArray<string>
): { readonly flag: string; readonly suggestions: ReadonlyArray<string> } | undefined => {
  if (!isNode(descriptor)) return undefined
  let node = unwrap(descriptor)
  let at = 0
  while (node._tag === "Subcommands" && at < args.length) {
    const word = args[at]
    const child = node.children.find((candidate) => isNode(candidate) && nameOf(candidate) === word)
    if (child === undefined) break
    node = unwrap(child)
    at++
  }
  if (node._tag !== "Standard") return undefined
  const rest = args.slice(at)
  const usage = CommandDescriptor.getUsage(node as unknown as CommandDescriptor.Command<unknown>)
  // A command with positional arguments can take a word like `--my-token` as one of them (`pc
  // config set dev-token --my-token`): only the parser can tell, so it is left to answer.
  if (positionalCount(usage) > 1) return undefined
  // The parser matches flags without regard to case.
  const takesValue = new Map<string, boolean>(
    [...[...BUILT_IN].map((name) => [name, false] as const), ...flagsOf(usage)].map(([name, value]) => [
      name.toLowerCase(),
      value
    ])
  )
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    // Past a built-in (`--help`), the parser answers with it and ignores what follows.
    if (word === "--" || BUILT_IN.has(word.toLowerCase())) break
    const flag = LONG_FLAG.exec(word)?.[1]
    if (flag === undefined) continue
    const known = takesValue.get(flag.toLowerCase())
    // Only the flag's name is ever repeated back: a value (a key pasted by mistake) never is.
    if (known === undefined) return { flag, suggestions: likelyMeant(flag, [...takesValue.keys()]) }
    // The next word is this flag's value, whatever it looks like.
    if (known && !word.includes("=")) i++
  }
  return undefined
}

/** How many names in a usage tree are not flags: the command's own name, then its positional arguments. */
const positionalCount = (usage: Usage.Usage): number => {
  switch (usage._tag) {
    case "Named":
      return usage.names.some((name) => name.startsWith("-")) ? 0 : 1
    case "Optional":
    case "Repeated":
      return positionalCount(usage.usage)
    case "Alternation":
    case "Concat":
      return positionalCount(usage.left) + positionalCount(usage.right)
    default:
      return 0
  }
}

/** Edit distance between two words (insertions, deletions, substitutions). */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** The declared flags that `flag` most likely meant: those it begins (`--key`: `--key-file`, `--key-version`), or else those a typo away. */
const likelyMeant = (flag: string, known: ReadonlyArray<string>): ReadonlyArray<string> => {
  const wanted = flag.toLowerCase()
  const longer = known.filter((name) => name.startsWith(wanted))
  if (longer.length > 0) return longer
  const near = known.map((name) => ({ name, distance: distance(wanted, name) })).filter((c) => c.distance <= 2)
  const best = Math.min(...near.map((c) => c.distance))
  return near.filter((c) => c.distance === best).map((c) => c.name)
}

/**
 * What to tell the user about the first unknown flag of `args` ({@link unknownFlag}), or `undefined`
 * when there is none to name.
 *
 * @example
 * ```ts
 * import { unknownFlagMessage } from "./UnknownFlags.js"
 *
 * unknownFlagMessage(pc.descriptor, ["orders", "create", "--key", "k.pem"])
 * // "Received unknown argument: '--key'. Did you mean '--key-file' or '--key-version'?"
 * ```
 */
export const unknownFlagMessage = (descriptor: unknown, args: ReadonlyArray<string>): string | undefined => {
  const found = unknownFlag(descriptor, args)
  if (found === undefined) return undefined
  // A long one could be something pasted (a key's base64): not repeated back.
  const named = found.flag.length <= 40 ? `'${found.flag}'` : `a flag of ${found.flag.length} characters`
  const meant = found.suggestions.map((name) => `'${name}'`).join(" or ")
  return `Received unknown argument: ${named}${meant === "" ? "" : `. Did you mean ${meant}?`}`
}
