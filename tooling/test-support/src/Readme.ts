// The fenced code blocks of a README that a test runs as written, found by the HTML comment on the
// line before them (`<!-- example: promise -->`, `<!-- quickstart -->`).

/** A fenced block after a marker comment: `<!-- marker -->` then ```lang. */
export interface MarkedBlock {
  readonly marker: string
  readonly lang: string
  /** The block's text, with its final newline. */
  readonly code: string
}

const fenced = /<!-- ([^>]*?) -->\n```([\w-]*)\n([\s\S]*?)^```$/gm

/**
 * Every fenced block that follows a marker comment: the marker's text, the block's language and code.
 *
 * @example
 * ```ts
 * const blocks = markedBlocks(readFileSync("README.md", "utf8"))
 * ```
 */
export const markedBlocks = (markdown: string): ReadonlyArray<MarkedBlock> =>
  [...markdown.matchAll(fenced)].map(([, marker = "", lang = "", code = ""]) => ({ marker, lang, code }))

/**
 * The blocks marked `<!-- kind: name -->`, in order, with their names.
 *
 * @example
 * ```ts
 * for (const { name, code } of blocksOf(readme, "example")) it(name, () => runExample(code))
 * ```
 */
export const blocksOf = (
  markdown: string,
  kind: string
): ReadonlyArray<{ readonly name: string; readonly lang: string; readonly code: string }> =>
  markedBlocks(markdown).flatMap(({ marker, lang, code }) => {
    const match = new RegExp(`^${kind}: ([\\w.-]+)$`).exec(marker)
    return match === null ? [] : [{ name: match[1]!, lang, code }]
  })

/**
 * The code of the one block after `<!-- marker -->`; throws when there is none or more than one.
 *
 * @example
 * ```ts
 * const quickstart = blockAfter(readme, "quickstart")
 * ```
 */
export const blockAfter = (markdown: string, marker: string): string => {
  const found = markedBlocks(markdown).filter((block) => block.marker === marker)
  if (found.length !== 1) throw new Error(`expected one block after <!-- ${marker} -->, found ${found.length}`)
  return found[0]!.code
}

/**
 * The package names of the first `npm i ...` line (flags and a trailing comment left out).
 *
 * @example
 * ```ts
 * expect(npmInstallNames(readme)).toEqual(["@pc/client", "effect"])
 * ```
 */
export const npmInstallNames = (markdown: string): ReadonlyArray<string> => {
  const line = /^npm i(?:nstall)? (.+)$/m.exec(markdown)?.[1]
  if (line === undefined) throw new Error("no npm i line")
  return line
    .split(" #")[0]!
    .split(/\s+/)
    .filter((word) => word !== "" && !word.startsWith("-"))
}
