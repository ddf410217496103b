// The repository stands alone: the service's document and the contract live in docs/, copied from
// the shared folder that CI checks out beside the clone (../shared); where that folder exists, the
// copies must match it byte for byte, and no tracked file may point outside the repository.
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { outsideLinks, read, root, trackedFiles } from "../src/Repository.js"

const shared = resolve(root, "..", "shared")
const copies = [
  ["docs/merchant-payment-connect.md", "spec/merchant-payment-connect.md"],
  ["docs/CONTRACT.md", "CONTRACT.md"]
] as const

describe("docs/", () => {
  it("holds the service's document and the contract", () => {
    for (const [copy] of copies) expect(read(copy)).toMatch(/^# /)
    expect(read("docs/CONTRACT.md")).toContain("## Running the mock")
  })

  // Skipped only where the shared folder is not beside the repository (a plain clone): there is
  // nothing to compare with. CI checks it out at ../shared, so there the copies are compared.
  it.skipIf(!existsSync(shared))("matches ../shared byte for byte", () => {
    for (const [copy, original] of copies) {
      expect(read(copy), `${copy} differs from ../shared/${original}: copy it again`).toBe(
        readFileSync(join(shared, original), "utf8")
      )
    }
  })
})

describe("links", () => {
  it("no tracked text file points outside the repository", () => {
    const files = trackedFiles("*.md", "*.ts", "*.mjs", "*.json", "*.yaml", ".ci/*").filter(
      (file) => file !== "pnpm-lock.yaml" && !file.startsWith("tooling/repo-checks/")
    )
    const outside = files.flatMap((file) =>
      outsideLinks(file, read(file)).map((link) => `${file}:${link.line}: ${link.target}`)
    )
    expect(outside).toEqual([])
  })

  it("finds a link that climbs out and a path to the shared folder, so the check above can fail", () => {
    const text =
      "see [the contract](../../../shared/CONTRACT.md)\nok [docs](../../docs/CONTRACT.md)\n// /work/shared/x.md"
    expect(outsideLinks("apps/mock-server/README.md", text).map((link) => link.target)).toEqual([
      "../../../shared/CONTRACT.md",
      "../../../shared/CONTRACT.md",
      "/work/shared/x.md"
    ])
  })
})
