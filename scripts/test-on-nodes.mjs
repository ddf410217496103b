// The root `test` script's second half: after the whole suite on this Node, the suites of the public
// packages (packages/*, the mock, pc) again on each other Node line the packages declare (engines:
// 20, 22 and 24), each Node from the npm registry (`npx -y node@24`). The workspace's build from the
// first half is what they test. better-sqlite3's addon is built for the Node that installed the
// workspace: on the others the mock runs on node:sqlite, and what needs that addon says it skips.
//
// What runs inside Chromium is left out on the other Nodes: crypto-web's chromium project and the
// mock's page tests drive the same Chromium (/usr/bin/chromium) whatever Node starts it, and they
// ran in the first half; what the Node under test serves them is covered by the mock's other suites.
//
// `node scripts/test-on-nodes.mjs [22] [24]` runs only the lines named. The closing summary gives
// each Node's own counts; its lines never read "Tests N", so that .ci/run's sum of vitest's
// "Tests N passed" lines (one per suite, on every Node) is not counted twice by it.
import { spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { stripVTControlCharacters } from "node:util"

const root = fileURLToPath(new URL("..", import.meta.url))
const LINES = ["20", "22", "24"]
const current = process.versions.node.split(".")[0]
const others = (process.argv.length > 2 ? process.argv.slice(2) : LINES).filter((line) => line !== current)

/** What of a suite runs in Chromium, left out on the other Nodes (see above), by package folder. */
const CHROMIUM_ONLY = {
  "packages/crypto-web": ["--project", "node"],
  "apps/mock-server": [
    "test/Checkout.test.ts",
    "test/CheckoutLayout.test.ts",
    "test/Dashboard.test.ts",
    "test/AuditDashboard.test.ts",
    "test/Docs.test.ts"
  ].flatMap((file) => ["--exclude", file])
}

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

/**
 * Runs a command with its output passed through as it comes, and gives back its exit code and the
 * counts of vitest's closing "Tests  N passed | M failed | K skipped (T)" line (zero when none).
 */
const run = (command, args, cwd) =>
  new Promise((resolve) => {
    const counts = { passed: 0, failed: 0, skipped: 0 }
    let tail = ""
    const read = (sink) => (chunk) => {
      sink.write(chunk)
      tail = (tail + chunk.toString("utf8")).slice(-8192)
    }
    const child = spawn(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" }
    })
    child.stdout.on("data", read(process.stdout))
    child.stderr.on("data", read(process.stderr))
    child.once("close", (code, signal) => {
      const line = stripVTControlCharacters(tail).match(/^ *Tests +(\d.*)$/m)?.[1] ?? ""
      for (const [, n, what] of line.matchAll(/(\d+) (passed|failed|skipped)/g)) counts[what] += Number(n)
      resolve({ code: code ?? (signal === null ? 1 : 128), counts })
    })
  })

const seconds = (since) => ((performance.now() - since) / 1000).toFixed(0)
const started = performance.now()
const summary = []
const failed = []
for (const line of others) {
  const nodeStarted = performance.now()
  const total = { passed: 0, failed: 0, skipped: 0 }
  for (const dir of suites) {
    const vitest = join(
      createRequire(join(root, dir, "package.json")).resolve("vitest/package.json"),
      "..",
      "vitest.mjs"
    )
    const leftOut = CHROMIUM_ONLY[dir] ?? []
    console.log(
      `\n+ Node ${line}: ${dir} (vitest run${leftOut.length > 0 ? " without what runs in Chromium, which ran on this Node" : ""})`
    )
    const suiteStarted = performance.now()
    const { code, counts } = await run("npx", ["-y", `node@${line}`, vitest, "run", ...leftOut], join(root, dir))
    for (const what of Object.keys(total)) total[what] += counts[what]
    if (code !== 0) failed.push(`Node ${line}: ${dir} (exit ${code})`)
    console.log(`+ Node ${line}: ${dir} took ${seconds(suiteStarted)} s`)
  }
  summary.push(
    `Node ${line}: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped in ${suites.length} suites, ${seconds(nodeStarted)} s`
  )
}

console.log(`\nthe packages', the mock's and pc's suites on the other Nodes (${seconds(started)} s in all):`)
for (const line of summary) console.log(`  ${line}`)
console.log("  (Chromium's part ran on this Node only; each Node's counts are its own, not a sum over Nodes)")
if (failed.length > 0) {
  console.error(`\nfailed on another Node:\n  ${failed.join("\n  ")}`)
  process.exit(1)
}
console.log(`\nthe packages', the mock's and pc's suites passed on Node ${others.join(" and ")}`)
