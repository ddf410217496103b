// startMock() and the client outside Node: the root README's quick start script, as written, run by
// Bun and by Deno (from npm). Both have node:sqlite, so the mock stores there as on Node 24; the
// callback server is node:http's, which both provide. The script sits in a folder inside this
// package, so that it imports @pc/client and @pc/mock-server from this package's node_modules.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { blockAfter, run } from "@pc/test-support"
import { afterAll, describe, expect, it } from "vitest"
import { runtimes } from "../src/Runtime.js"

const here = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(join(here, "../../README.md"), "utf8")
const dir = mkdtempSync(join(here, ".quickstart-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The quick start's script: the heredoc that its block writes to quickstart.mjs. */
const script = /cat > quickstart\.mjs <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(blockAfter(readme, "quickstart"))?.[1]
writeFileSync(join(dir, "quickstart.mjs"), `${script ?? ""}\n`)

const commands = {
  bun: (binary: string) => [binary, ["quickstart.mjs"]] as const,
  deno: (binary: string) => [binary, ["run", "--allow-all", "quickstart.mjs"]] as const
}

describe.each(runtimes().filter((runtime) => runtime.name === "bun" || runtime.name === "deno"))(
  "the README quick start in $name $version",
  (runtime) => {
    it("starts the mock, creates an order, and verifies its order.paid callback", async () => {
      expect(script).toMatch(/startMock\(\)/)
      const [command, args] = commands[runtime.name as "bun" | "deno"](runtime.binary)
      const result = await run(command, args, { cwd: dir, timeoutMs: 120_000 })
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
      expect(result.stdout).toMatch(/^order created: (PC\S+) http:\/\/127\.0\.0\.1:\d+\/h5\/checkout\/\1$/m)
      expect(result.stdout).toMatch(/^verified callback: order\.paid PC\S+ 10\.00 USD$/m)
    })
  }
)
