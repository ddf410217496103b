// The adapters must stay Effect-free at run time (STYLE.md): a merchant who only signs must not
// load or bundle `effect`. Bundle each adapter's entry as a consumer would and look at its imports.
import { build } from "esbuild"
import { describe, expect, it } from "vitest"

const importsOf = async (contents: string, platform: "node" | "browser"): Promise<ReadonlyArray<string>> => {
  const result = await build({
    stdin: { contents, resolveDir: new URL("..", import.meta.url).pathname, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform,
    metafile: true,
    // Anything from effect stays an import in the output, so it shows up here if it is reached.
    external: ["effect", "effect/*"],
    logLevel: "silent"
  })
  return Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path))
}

describe("adapters do not pull in effect", () => {
  it("@pc/crypto-node (its source, over @pc/core's built subpaths)", async () => {
    const imports = await importsOf(`export { NodeCrypto, KeyPair } from "./src/index.ts"`, "node")
    expect(imports.filter((path) => path.startsWith("effect"))).toEqual([])
    expect(imports.some((path) => path.startsWith("node:crypto"))).toBe(true)
  })

  it("@pc/crypto-web (its published entry)", async () => {
    const imports = await importsOf(`export { WebCrypto } from "@pc/crypto-web"`, "browser")
    expect(imports).toEqual([])
  })

  it("the check can fail: @pc/core/Wire does reach effect", async () => {
    const imports = await importsOf(`export * as Wire from "@pc/core/Wire"`, "node")
    expect(imports.some((path) => path.startsWith("effect"))).toBe(true)
  })
})
