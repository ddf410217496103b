// The bin's code cache (src/CodeCache.ts) on real files and real V8: a cache is left beside the
// bundle and used, a changed bundle never runs from the old one (V8 itself only compares the
// source's length, so a same-length change is the dangerous case), a broken cache is replaced, and
// what the bundle throws while it loads reaches the user.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MODULE_WRAPPER } from "../src/CodeCache.js"

const dir = mkdtempSync(join(tmpdir(), "pc-code-cache-"))
const runner = join(dir, "runner.mjs")
const bundle = join(dir, "bundle.cjs")

/** A CommonJS module body wrapped as build.mjs wraps the bundle. */
const wrapped = (body: string) => `${MODULE_WRAPPER[0]}${body}${MODULE_WRAPPER[1]}`

/** A bundle that prints `word` and its own file name (the module wrapper's `require` and `__filename`). */
const printing = (word: string) =>
  wrapped(`console.log(${JSON.stringify(word)} + " " + require("node:path").basename(__filename))`)

const run = () => {
  const result = spawnSync(process.execPath, [runner, bundle], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr }
}

const caches = () => readdirSync(dir).filter((name) => name.endsWith(".v8cache"))

beforeAll(async () => {
  // The runner is CodeCache.ts itself, bundled as the bin is.
  await build({
    stdin: {
      contents: `import { runBundle } from ${JSON.stringify(fileURLToPath(new URL("../src/CodeCache.ts", import.meta.url)))}\nawait runBundle(process.argv[2])`,
      resolveDir: dir,
      loader: "ts"
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: runner,
    logLevel: "error"
  })
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("runBundle", () => {
  it("leaves a cache beside the bundle on the first run and runs from it on the next", () => {
    writeFileSync(bundle, printing("first"))
    expect(run()).toMatchObject({ status: 0, stdout: "first bundle.cjs" })
    expect(caches()).toHaveLength(1)
    const [cache] = caches()
    const written = readFileSync(join(dir, cache!))
    expect(written.length).toBeGreaterThan(0)
    expect(run()).toMatchObject({ status: 0, stdout: "first bundle.cjs" })
    // Accepted, so not written again.
    expect(readFileSync(join(dir, cache!)).equals(written)).toBe(true)
    expect(caches()).toEqual([cache])
  })

  it("never runs a changed bundle of the same length from the old cache", () => {
    writeFileSync(bundle, printing("first"))
    run()
    const changed = printing("other")
    expect(changed.length).toBe(printing("first").length)
    writeFileSync(bundle, changed)
    expect(run()).toMatchObject({ status: 0, stdout: "other bundle.cjs" })
    expect(run()).toMatchObject({ status: 0, stdout: "other bundle.cjs" })
  })

  it("replaces a cache V8 refuses, and the bundle still runs", () => {
    writeFileSync(bundle, printing("whole"))
    run()
    // Every cache of this folder broken: the one for this bundle is among them.
    const broken = Buffer.alloc(4096, 7)
    for (const name of caches()) writeFileSync(join(dir, name), broken)
    expect(run()).toMatchObject({ status: 0, stdout: "whole bundle.cjs" })
    const replaced = caches().map((name) => readFileSync(join(dir, name)))
    expect(replaced.some((content) => !content.equals(broken))).toBe(true)
    expect(run()).toMatchObject({ status: 0, stdout: "whole bundle.cjs" })
  })

  it("lets what the bundle throws while it loads reach the user", () => {
    writeFileSync(bundle, wrapped(`throw new Error("the bundle is broken")`))
    const result = run()
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("the bundle is broken")
  })

  it("refuses a bundle that is not wrapped as build.mjs wraps it, saying so, instead of running nothing", () => {
    writeFileSync(bundle, `console.log("unwrapped")`)
    const result = run()
    expect(result.status).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("is not a wrapped CommonJS module")
  })
})
