// The root `test` script's second half: after the whole suite on this Node, the suites of the public
// packages (packages/*, the mock, pc) again on each other Node line the packages declare (engines:
// 20, 22 and 24), each Node from the npm registry (`npx -y node@24`). The workspace's build from the
// first half is what they test. better-sqlite3's addon is built for the Node that installed the
// workspace: on the others the mock runs on node:sqlite, and what needs that addon says it skips.
import { spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const LINES = ["20", "22", "24"]
const current = process.versions.node.split(".")[0]
const others = (process.argv.length > 2 ? process.argv.slice(2) : LINES).filter((line) => line !== current)

/** Folders of the public packages: every packages/* and apps/* whose package.json is not private. */
const suites = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(group, entry.name))
    .filter((dir) => {
      const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"))
      return pkg.private !== true && pkg.scripts?.test === "vitest run"
    })
)

const sh = (command, args, cwd) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: "inherit", env: { ...process.env, NODE_OPTIONS: "" } })
    child.once("exit", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })

const failed = []
for (const line of others) {
  for (const dir of suites) {
    const vitest = join(
      createRequire(join(root, dir, "package.json")).resolve("vitest/package.json"),
      "..",
      "vitest.mjs"
    )
    console.log(`\n+ Node ${line}: ${dir} (vitest run)`)
    const code = await sh("npx", ["-y", `node@${line}`, vitest, "run"], join(root, dir))
    if (code !== 0) failed.push(`Node ${line}: ${dir}`)
  }
}
if (failed.length > 0) {
  console.error(`\nfailed on another Node:\n  ${failed.join("\n  ")}`)
  process.exit(1)
}
console.log(`\nthe packages', the mock's and pc's suites passed on Node ${others.join(" and ")}`)
