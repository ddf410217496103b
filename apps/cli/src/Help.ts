/**
 * `pc --help` and `pc <command> --help`, readable in a terminal of any width. @effect/cli (0.77)
 * renders help with a paragraph of boilerplate under each option ("A true or false value.", "This
 * setting is optional."), pads the command list to the longest usage (about column 280, so each row
 * wraps into blank lines at 80 columns and breaks mid-word), and names a nested group's commands
 * twice ("merchants merchants keys add"). This renders the same descriptors itself: its own command
 * list from the tree, the options without the boilerplate, every line wrapped at the width.
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as CommandDescriptor from "@effect/cli/CommandDescriptor"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"

/** How a user of an installed `@pc/cli` runs it: a local install puts `pc` in node_modules/.bin only. */
export const RUN = "npx pc"

/** The parts of a command descriptor read here (the shapes UnknownFlags.ts reads too). */
type Node =
  | { readonly _tag: "Standard"; readonly name: string; readonly description: HelpDoc.HelpDoc }
  | { readonly _tag: "GetUserInput"; readonly name: string }
  | { readonly _tag: "Map"; readonly command: Node }
  | { readonly _tag: "Subcommands"; readonly parent: Node; readonly children: ReadonlyArray<Node> }

const unwrap = (node: Node): Node => (node._tag === "Map" ? unwrap(node.command) : node)
const nameOf = (node: Node): string => {
  const inner = unwrap(node)
  return inner._tag === "Subcommands" ? nameOf(inner.parent) : inner._tag === "Map" ? "" : inner.name
}
/** The node that carries a command's own description and options (a group's parent). */
const ownOf = (node: Node): Node => {
  const inner = unwrap(node)
  return inner._tag === "Subcommands" ? ownOf(inner.parent) : inner
}

/** @effect/cli's paragraphs that say nothing the option's own line does not. */
const BOILERPLATE =
  /^(A true or false value\.|A user-defined piece of text\.|An integer\.|A floating point number\.|One of the following: .*|This setting is optional\.|(An existing|A) (file|directory|file or directory)( that must not exist)?\.)$/

const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
      return span.value
    case "URI":
      return String(span.value)
    case "Highlight":
    case "Weak":
    case "Strong":
      return spanText(span.value)
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    default:
      return ""
  }
}

/** Words of `text` on lines of at most `width` columns, each starting with `indent`; a word longer than a line stands alone, uncut. */
export const wrap = (text: string, width: number, indent = "", hanging = indent): Array<string> =>
  text.split("\n").flatMap((paragraph, n) => {
    const lines: Array<string> = []
    let line = n === 0 ? indent : hanging
    let empty = true
    for (const word of paragraph.split(/\s+/).filter((w) => w !== "")) {
      if (!empty && line.length + 1 + word.length > width) {
        lines.push(line)
        line = hanging + word
      } else line += (empty ? "" : " ") + word
      empty = false
    }
    lines.push(line)
    return lines
  })

/** The option and argument sections of a command's own help, without the boilerplate. */
const renderBlocks = (doc: HelpDoc.HelpDoc, width: number, out: Array<string>, indent: string): void => {
  switch (doc._tag) {
    case "Empty":
      return
    case "Header": {
      const text = spanText(doc.value)
      // The DESCRIPTION and USAGE sections are written by renderCommand.
      if (doc.level === 1) out.push("", text)
      else out.push("", ...wrap(text, width, "  "))
      return
    }
    case "Paragraph": {
      const text = spanText(doc.value).trim()
      if (text === "" || BOILERPLATE.test(text)) return
      const defaulted = /^This setting is optional\. Defaults to: (.*)$/s.exec(text)
      out.push(...wrap(defaulted ? `default: ${defaulted[1]}` : text, width, indent))
      return
    }
    case "DescriptionList":
      for (const [span, body] of doc.definitions) {
        out.push("", ...wrap(spanText(span), width, "  ", "      "))
        renderBlocks(body, width, out, "      ")
      }
      return
    case "Enumeration":
      for (const element of doc.elements) renderBlocks(element, width, out, indent)
      return
    case "Sequence":
      renderBlocks(doc.left, width, out, indent)
      renderBlocks(doc.right, width, out, indent)
      return
  }
}

/** Every command under `node`, as its full path (the node's own first), with the first line of its description. */
const commandsUnder = (node: Node, path: ReadonlyArray<string>): Array<readonly [string, string]> => {
  const inner = unwrap(node)
  const own = ownOf(node)
  const here = [...path, nameOf(node)]
  const summary = own._tag === "Standard" ? (spanTextOfDoc(own.description).split("\n")[0] ?? "") : ""
  const children = inner._tag === "Subcommands" ? inner.children : []
  return [[here.join(" "), summary], ...children.flatMap((child) => commandsUnder(child, here))]
}

const spanTextOfDoc = (doc: HelpDoc.HelpDoc): string => {
  switch (doc._tag) {
    case "Paragraph":
    case "Header":
      return spanText(doc.value)
    case "Sequence":
      return [spanTextOfDoc(doc.left), spanTextOfDoc(doc.right)].filter((t) => t !== "").join("\n")
    default:
      return ""
  }
}

/** The words that name the command asked about (`merchants keys add`), and its descriptor node. */
const find = (root: Node, args: ReadonlyArray<string>): { readonly node: Node; readonly path: Array<string> } => {
  let node = root
  const path = [nameOf(root)]
  for (const word of args) {
    if (word.startsWith("-")) continue
    const inner = unwrap(node)
    const child = inner._tag === "Subcommands" ? inner.children.find((c) => nameOf(c) === word) : undefined
    if (child === undefined) break
    node = child
    path.push(word)
  }
  return { node, path }
}

/**
 * The help of the command that `args` (the words after `pc`, with `--help` among them) name, at
 * `width` columns: usage, description (with its example), options, and for a group every command
 * under it by its full name. `undefined` when the descriptor has a shape this module does not know:
 * the caller then lets @effect/cli answer.
 *
 * @example
 * ```ts
 * import { renderHelp } from "./Help.js"
 *
 * process.stdout.write(renderHelp(pc.descriptor, ["orders", "create", "--help"], "0.1.0", 80) ?? "")
 * ```
 */
export const renderHelp = (
  descriptor: unknown,
  args: ReadonlyArray<string>,
  version: string,
  width: number
): string | undefined => {
  const root = descriptor as Node
  if (typeof root !== "object" || root === null || !("_tag" in root)) return undefined
  const { node, path } = find(root, args)
  const own = ownOf(node)
  if (own._tag !== "Standard") return undefined
  const inner = unwrap(node)
  const out: Array<string> = [`pc ${version}`]
  const parents = path.slice(1, -1)
  const usage =
    inner._tag === "Subcommands"
      ? [...path.slice(1), "<command> [options]"].join(" ")
      : [
          ...parents,
          spanTextOfUsage(CommandDescriptor.getUsage(own as unknown as CommandDescriptor.Command<unknown>))
        ].join(" ")
  out.push("", "USAGE", ...wrap(`${RUN} ${usage}`, width, "  ", "      "))
  out.push("", "DESCRIPTION", ...wrap(spanTextOfDoc(own.description), width, "  "))
  // The built-in options (--help, --version, --completions, ...) are listed once, on pc's own help.
  const help = CommandDescriptor.getHelp(
    own as unknown as CommandDescriptor.Command<unknown>,
    CliConfig.make({ showBuiltIns: path.length === 1 })
  )
  const sections: Array<string> = []
  renderBlocks(dropDescription(help), width, sections, "      ")
  out.push(...sections)
  if (inner._tag === "Subcommands") {
    out.push("", "COMMANDS")
    for (const child of inner.children) {
      for (const [name, summary] of commandsUnder(child, path.slice(1))) {
        out.push("", ...wrap(`${RUN} ${name}`, width, "  ", "      "), ...wrap(summary, width, "      "))
      }
    }
    out.push("", ...wrap(`Help on one: ${RUN} ${[...path.slice(1), "<command>"].join(" ")} --help`, width))
  }
  return `${out.join("\n").replace(/\n{3,}/g, "\n\n")}\n`
}

/** The usage line of a command as text (`create [--json] --order-id text ...`). */
const spanTextOfUsage = (usage: Usage.Usage): string =>
  Usage.getHelp(usage)._tag === "Empty" ? "" : spanTextOfDoc(Usage.getHelp(usage)).replace(/\s+/g, " ").trim()

/** A command's help less its DESCRIPTION section, which renderHelp writes itself. */
const dropDescription = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  if (doc._tag !== "Sequence") return doc
  const left = doc.left
  if (left._tag === "Sequence" && left.left._tag === "Header" && spanText(left.left.value) === "DESCRIPTION") {
    return dropDescription(doc.right)
  }
  if (left._tag === "Header" && spanText(left.value) === "DESCRIPTION") return { _tag: "Empty" } as HelpDoc.HelpDoc
  return { ...doc, left: dropDescription(left), right: dropDescription(doc.right) } as HelpDoc.HelpDoc
}
