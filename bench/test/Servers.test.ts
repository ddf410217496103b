// The bench's process handling: a server under test that dies is reported with what it printed,
// never left as an await with nothing left to run (Node's bare exit code 13, which says nothing).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { freePort, startServer } from "../src/Servers.js"

const dir = mkdtempSync(join(tmpdir(), "pc-bench-servers-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A server under test from `source` (a module listening on the port in argv[2]), started with the GC hook. */
const serverFrom = async (name: string, source: string) => {
  const script = join(dir, `${name}.mjs`)
  writeFileSync(script, source)
  const port = await freePort()
  return startServer({
    name,
    nodeArgs: [script, String(port)],
    port,
    readyPath: "/",
    ready: (status) => status === 200,
    gc: true
  })
}

describe("startServer's GC request", () => {
  it("fails with the child's exit and its last output when the child is gone before its GC hook answers", async () => {
    // Answers HTTP, then ends on its own before anyone asks it for a GC.
    const server = await serverFrom(
      "dies",
      `import { createServer } from "node:http"
createServer((req, res) => { res.end("ok"); console.log("served once, exiting"); setTimeout(() => process.exit(3), 50) })
  .listen(Number(process.argv[2]), "127.0.0.1")
`
    )
    await new Promise((resolve) => setTimeout(resolve, 500))
    await expect(server.gc()).rejects.toThrow(
      /dies exited with 3 before its GC hook answered:\n[\s\S]*served once, exiting/
    )
  })

  it("answers with the live heap when the child is there", async () => {
    const server = await serverFrom(
      "lives",
      `import { createServer } from "node:http"
createServer((req, res) => res.end("ok")).listen(Number(process.argv[2]), "127.0.0.1")
`
    )
    try {
      expect(await server.gc()).toBeGreaterThan(0)
    } finally {
      await server.stop()
    }
  })
})
