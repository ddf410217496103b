// The fenced code blocks of a README that a test runs as written, found by the HTML comment on the
// line before them (`<!-- example: promise -->`, `<!-- quickstart -->`).

const fenced = /<!-- ([^>]*?) -->\n```([\w-]*)\n([\s\S]*?)^```$/gm

/** Every fenced block that follows a marker comment: the marker's text, the block's language and code. */
export const markedBlocks = (markdown) =>
  [...markdown.matchAll(fenced)].map(([, marker, lang, code]) => ({ marker, lang, code }))

/** The blocks marked `<!-- kind: name -->`, in order, with their names. */
export const blocksOf = (markdown, kind) =>
  markedBlocks(markdown).flatMap(({ marker, lang, code }) => {
    const match = new RegExp(`^${kind}: ([\\w.-]+)$`).exec(marker)
    return match === null ? [] : [{ name: match[1], lang, code }]
  })

/** The code of the one block after `<!-- marker -->`; throws when there is none or more than one. */
export const blockAfter = (markdown, marker) => {
  const found = markedBlocks(markdown).filter((block) => block.marker === marker)
  if (found.length !== 1) throw new Error(`expected one block after <!-- ${marker} -->, found ${found.length}`)
  return found[0].code
}

/** The package names of the first `npm i ...` line (flags and a trailing comment left out). */
export const npmInstallNames = (markdown) => {
  const line = /^npm i(?:nstall)? (.+)$/m.exec(markdown)?.[1]
  if (line === undefined) throw new Error("no npm i line")
  return line
    .split(" #")[0]
    .split(/\s+/)
    .filter((word) => word !== "" && !word.startsWith("-"))
}
