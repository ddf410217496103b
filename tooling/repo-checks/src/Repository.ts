/**
 * The repository as files: its root, the files git tracks, and the facts the checks read from them
 * (the pnpm a command names, the links a document makes).
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, isAbsolute, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository's root folder (where the root package.json is). */
export const root: string = resolve(dirname(fileURLToPath(import.meta.url)), "../../..")

/** Files git tracks, relative to the root; `patterns` are git pathspecs (`"*.md"`). */
export const trackedFiles = (...patterns: ReadonlyArray<string>): ReadonlyArray<string> =>
  execFileSync("git", ["ls-files", "-z", "--", ...patterns], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "")

/** A file's text, by its path relative to the root. */
export const read = (file: string): string => readFileSync(join(root, file), "utf8")

/** The exact version of `packageManager` in the root package.json (`pnpm@10.34.8` gives `10.34.8`). */
export const pinnedPnpm = (): string => {
  const packageManager = (JSON.parse(read("package.json")) as { packageManager?: string }).packageManager ?? ""
  const match = /^pnpm@(\d+\.\d+\.\d+)$/.exec(packageManager)
  if (match === null)
    throw new Error(`packageManager must be pnpm@<exact version>, not ${JSON.stringify(packageManager)}`)
  return match[1]!
}

/** One place a text names pnpm through npx or npm: the line and the version asked for (`""` for none). */
export interface PnpmMention {
  readonly line: number
  readonly version: string
  readonly text: string
}

/**
 * Every `npx ... pnpm`, `npm i -g pnpm` and `pnpm@<version>` in a text: a command that fetches pnpm
 * must name one exact version, because a range (`pnpm@10`) follows the newest release, and that
 * release may refuse to run (it switches to `packageManager`'s pnpm and fails to verify it).
 */
export const pnpmMentions = (text: string): ReadonlyArray<PnpmMention> => {
  const mentions: Array<PnpmMention> = []
  text.split("\n").forEach((line, index) => {
    for (const match of line.matchAll(
      /(?:\bnpx\s+(?:-y\s+|--yes\s+)?|\bnpm\s+(?:i|install)\s+-g\s+|\b)pnpm@([^\s"'`)\]]*)/g
    )) {
      mentions.push({ line: index + 1, version: match[1]!, text: line.trim() })
    }
    for (const match of line.matchAll(/\b(?:npx\s+(?:-y\s+|--yes\s+)?|npm\s+(?:i|install)\s+-g\s+)pnpm(?![@\w-])/g)) {
      mentions.push({ line: index + 1, version: "", text: match[0] })
    }
  })
  return mentions
}

/** A link target in Markdown (`[text](target)`), or a path in code, that leaves the repository. */
export interface OutsideLink {
  readonly line: number
  readonly target: string
}

/**
 * Links and paths in `file`'s text that point outside the repository: relative Markdown links that
 * climb above the root, and any `../shared/` or `/work/` path (the folders beside the repository
 * that a reader of the repository does not have).
 */
export const outsideLinks = (file: string, text: string): ReadonlyArray<OutsideLink> => {
  const found: Array<OutsideLink> = []
  text.split("\n").forEach((line, index) => {
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!.split("#")[0]!
      if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target) || isAbsolute(target)) continue
      const resolved = relative(root, resolve(root, dirname(file), target))
      if (resolved.startsWith("..")) found.push({ line: index + 1, target: match[1]! })
    }
    for (const match of line.matchAll(/(?:\.\.\/)+shared\/[\w./-]*|\/work\/[\w./-]+/g)) {
      found.push({ line: index + 1, target: match[0] })
    }
  })
  return found
}
