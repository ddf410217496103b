// `pnpm test:quick`: the fast loop beside `pnpm test`. It runs, in each workspace package with
// changes since the branch left main (committed or not), the test files that import a changed file
// (vitest's --changed follows the import graph), after turbo builds the package and what it uses
// (cached when nothing changed). It installs nothing and starts no system-package check.
// What it skips, on purpose: tests that reach the code only through a spawned process or a browser
// (they import no changed file), packages whose tests install or publish (consumer, registry,
// runtimes, bench), and typecheck, lint and packaging checks: `pnpm test` runs all of them.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join, relative, sep } from "node:path"

const root = join(import.meta.dirname, "..")
const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim()
const gitOk = (...args) => spawnSync("git", args, { cwd: root, encoding: "utf8" }).status === 0

// main as the remote has it, else the local main, else the commit before this one.
const against =
  process.argv[2] ?? ["origin/main", "main", "HEAD~"].find((ref) => gitOk("rev-parse", "--verify", "-q", ref))
if (against === undefined) throw new Error("no base to compare with: pass one (pnpm test:quick <ref>)")
const base = git("merge-base", "HEAD", against)
const changed = [
  ...git("diff", "--name-only", base).split("\n"),
  ...git("ls-files", "--others", "--exclude-standard").split("\n")
].filter((file) => file !== "")

// The packages whose tests install packages, publish or start other runtimes: never quick.
const slow = new Set(["tooling/consumer", "tooling/registry", "tooling/runtimes", "bench"])
const workspaceDirs = ["packages", "apps", "tooling"].flatMap((group) =>
  existsSync(join(root, group))
    ? execFileSync("ls", [group], { cwd: root, encoding: "utf8" })
        .split("\n")
        .filter((name) => name !== "")
        .map((name) => `${group}/${name}`)
    : []
)
const packages = workspaceDirs.filter(
  (dir) =>
    existsSync(join(root, dir, "vitest.config.ts")) &&
    !slow.has(dir) &&
    changed.some((file) => file.startsWith(`${dir}/`))
)

console.log(`test:quick: ${changed.length} changed file(s) since ${against} (${base.slice(0, 8)})`)
if (packages.length === 0) {
  console.log("no package with tests changed; nothing to run")
  process.exit(0)
}
const names = packages.map((dir) => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).name)
console.log(`packages: ${names.join(", ")}`)

const run = (command, args, cwd) => {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" })
  return result.status ?? 1
}
// turbo runs under pnpm (it finds the package manager through npm_execpath); `name...` is the
// package and everything it uses. test-support's mock fixture loads the built mock, an optional
// peer that turbo's graph does not follow.
const toBuild = names.includes("@pc/test-support") ? [...names, "@pc/mock-server"] : names
const built = run(
  "turbo",
  ["run", "build", "--output-logs=errors-only", ...toBuild.map((name) => `--filter=${name}...`)],
  root
)
if (built !== 0) process.exit(built)

let failed = 0
for (const dir of packages) {
  console.log(`\n${relative(root, join(root, dir)).split(sep).join("/")}: vitest run --changed ${base.slice(0, 8)}`)
  const status = run("vitest", ["run", "--changed", base, "--passWithNoTests"], join(root, dir))
  if (status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
