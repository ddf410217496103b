// Every command a reader copies (READMEs, docs) and CI's script must fetch exactly the pnpm of
// `packageManager`: `npx -y pnpm@10` follows the newest pnpm 10, which switches to the pinned one
// and can refuse to run, so a pnpm release elsewhere would break our README without a change here.
import { describe, expect, it } from "vitest"
import { pinnedPnpm, pnpmMentions, read, trackedFiles } from "../src/Repository.js"

describe("the pnpm every command names", () => {
  it("is packageManager's exact version in every tracked Markdown file and .ci/run", () => {
    const pinned = pinnedPnpm()
    const files = [...trackedFiles("*.md"), ".ci/run"]
    expect(files).toContain("README.md")
    const wrong = files.flatMap((file) =>
      pnpmMentions(read(file))
        .filter((mention) => mention.version !== pinned)
        .map((mention) => `${file}:${mention.line}: ${mention.text}`)
    )
    expect(wrong).toEqual([])
  })

  it("the README's start and test commands do name it", () => {
    const readme = read("README.md")
    const versions = pnpmMentions(readme).map((mention) => mention.version)
    expect(versions.length).toBeGreaterThan(1)
    expect(new Set(versions)).toEqual(new Set([pinnedPnpm()]))
  })

  it("finds ranges, other versions and a bare pnpm, so the check above can fail", () => {
    const text = [
      "npx -y pnpm@10 install",
      "run `npx pnpm@10.34.9 test`",
      "npx --yes pnpm install",
      "npm i -g pnpm",
      "npx -y pnpm@10.34.8 mock",
      "the pnpm-workspace.yaml file and pnpm alone are fine"
    ].join("\n")
    expect(pnpmMentions(text).map(({ line, version }) => [line, version])).toEqual([
      [1, "10"],
      [2, "10.34.9"],
      [3, ""],
      [4, ""],
      [5, "10.34.8"]
    ])
  })
})
