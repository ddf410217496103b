// The crypto conformance suite (tooling/crypto-conformance: the openssl vectors and the properties)
// against @pc/crypto-web in Bun, Deno and workerd: one bundle of the same suite, served by each
// runtime's own server, every case reported back here as a vitest test of its own.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundle } from "../src/Bundle.js"
import type { CaseResult } from "../src/Harness.js"
import { runtimes, serve } from "../src/Runtime.js"
import type { ConformanceRun } from "../src/workers/Conformance.js"

const dir = mkdtempSync(join(tmpdir(), "pc-runtimes-conformance-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const bundled = await bundle("Conformance.ts", join(dir, "conformance.mjs"))
const modulePath = bundled.path
// The cases come from the bundle itself, listed here without running them: a runtime that crashes
// or skips cases fails each missing case by name instead of passing with fewer.
const worker = (await import(pathToFileURL(modulePath).href)) as {
  default: { fetch(request: Request): Promise<Response> }
}
const cases = (await (
  await worker.default.fetch(new Request("http://localhost/cases"))
).json()) as ReadonlyArray<string>

describe("the conformance bundle", () => {
  it("holds the whole suite: request, callback and negative vectors, key import, properties", () => {
    for (const group of ["request vectors", "callback vectors", "negative vectors", "key import", "properties"]) {
      expect(cases.filter((name) => name.includes(` > ${group}`)).length).toBeGreaterThan(0)
    }
    expect(new Set(cases).size).toBe(cases.length)
  })

  it("carries no effect: the suite, core's subpaths and crypto-web sign and verify without it", () => {
    expect(bundled.inputs.some((input) => input.includes("crypto-web/"))).toBe(true)
    expect(bundled.inputs.filter((input) => /[/\\]effect[/\\]|[/\\]@effect[/\\]/.test(input))).toEqual([])
  })
})

for (const runtime of runtimes()) {
  describe(`${runtime.name} ${runtime.version}`, () => {
    let run: ConformanceRun
    let results: Map<string, CaseResult>

    beforeAll(async () => {
      const served = await serve(runtime, modulePath, {})
      try {
        const response = await fetch(`${served.url}/run`)
        expect(response.status, served.output()).toBe(200)
        run = (await response.json()) as ConformanceRun
      } finally {
        await served.close()
      }
      results = new Map(run.results.map((r) => [r.name, r]))
    })

    it("ran the bundle itself and reported every case of the suite, in order", () => {
      // workerd does not tell its version to the code it runs; Bun and Deno do, and it must match.
      expect(run.runtime).toBe(runtime.name === "workerd" ? "workerd" : `${runtime.name} ${runtime.version}`)
      expect(run.results.map((r) => r.name)).toEqual(cases)
    })

    for (const name of cases) {
      it(name, () => {
        const result = results.get(name)
        expect(result, `${name} did not run in ${runtime.name}`).toBeDefined()
        if (result?.ok !== true) throw new Error(`failed in ${runtime.name} ${runtime.version}: ${result?.error}`)
      })
    }
  })
}
