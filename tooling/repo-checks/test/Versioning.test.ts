// `pnpm version-packages` (changeset version) on a copy of the repository: a change in @pc/core
// bumps it and re-ranges its dependents with a patch each, never a major through a peer, and
// writes every CHANGELOG. Run on a throwaway copy, since the command rewrites package.json files.
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { publicPackages as listPublic } from "@pc/test-support"
import { afterAll, expect, it } from "vitest"
import { root, trackedFiles } from "../src/Repository.js"

const copy = mkdtempSync(join(tmpdir(), "pc-versioning-"))
afterAll(() => rmSync(copy, { recursive: true, force: true }))

const publicPackages = listPublic(root)

const versionOf = (dir: string): string =>
  (JSON.parse(readFileSync(join(copy, dir, "package.json"), "utf8")) as { version: string }).version

it("a minor change of @pc/core: core gets the minor, each dependent a patch, every public package a CHANGELOG", () => {
  for (const file of trackedFiles()) {
    if (file.startsWith(".changeset/") && file.endsWith(".md") && !file.endsWith("README.md")) continue
    mkdirSync(dirname(join(copy, file)), { recursive: true })
    writeFileSync(join(copy, file), readFileSync(join(root, file)))
  }
  const git = (...args: Array<string>) =>
    execFileSync("git", ["-c", "user.email=ci@example.invalid", "-c", "user.name=ci", ...args], { cwd: copy })
  git("init", "-q")
  git("add", "-A")
  git("commit", "-qm", "copy")
  const before = Object.fromEntries(Object.entries(publicPackages).map(([name, dir]) => [name, versionOf(dir)]))
  writeFileSync(join(copy, ".changeset/core-minor.md"), '---\n"@pc/core": minor\n---\n\nA new helper.\n')

  // `pnpm version-packages` is `changeset version`: run that, with the CLI this package installs.
  const scripts = (JSON.parse(readFileSync(join(copy, "package.json"), "utf8")) as { scripts: Record<string, string> })
    .scripts
  expect(scripts["version-packages"]).toBe("changeset version")
  const changeset = createRequire(import.meta.url).resolve("@changesets/cli/bin.js")
  execFileSync(process.execPath, [changeset, "version"], { cwd: copy, stdio: "ignore" })

  const bump = (from: string, to: string) => {
    const [a, b, c] = from.split(".").map(Number) as [number, number, number]
    const [x, y, z] = to.split(".").map(Number) as [number, number, number]
    return x > a ? "major" : y > b ? "minor" : z > c ? "patch" : "none"
  }
  const bumps = Object.fromEntries(
    Object.entries(publicPackages).map(([name, dir]) => [name, bump(before[name]!, versionOf(dir))])
  )
  expect(bumps).toEqual({
    "@pc/core": "minor",
    "@pc/crypto-node": "patch",
    "@pc/crypto-web": "patch",
    "@pc/client": "patch",
    "@pc/mock-server": "patch",
    "@pc/cli": "patch"
  })
  for (const dir of Object.values(publicPackages)) {
    expect(readFileSync(join(copy, dir, "CHANGELOG.md"), "utf8")).toContain(`## ${versionOf(dir)}`)
  }
  expect(readFileSync(join(copy, "packages/core/CHANGELOG.md"), "utf8")).toContain("A new helper.")
  // Each dependent of core records the new core version; its range stays `workspace:^`, which pnpm
  // publishes as `^<that version>` (the registry test checks the published ranges).
  const core = versionOf("packages/core")
  for (const name of ["@pc/crypto-node", "@pc/crypto-web", "@pc/client", "@pc/mock-server", "@pc/cli"] as const) {
    const dir = publicPackages[name]!
    const manifest = JSON.parse(readFileSync(join(copy, dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>
      peerDependencies?: Record<string, string>
    }
    expect(manifest.dependencies?.["@pc/core"], name).toBe("workspace:^")
    expect(manifest.peerDependencies?.["@pc/core"], `${name} has @pc/core as a peer`).toBeUndefined()
    expect(readFileSync(join(copy, dir, "CHANGELOG.md"), "utf8"), name).toMatch(
      new RegExp(`Updated dependencies[\\s\\S]*@pc/core@${core.replace(/\./g, "\\.")}`)
    )
  }
})
