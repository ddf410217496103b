// Bundles a worker module for Bun, Deno and workerd the way a merchant's bundler would: one ESM file,
// platform-neutral (no Node built-ins), with `vitest` mapped to the small harness so that the shared
// suites run unchanged outside vitest.
import { build } from "esbuild"
import { fileURLToPath } from "node:url"

const harness = fileURLToPath(new URL("./Harness.ts", import.meta.url))

/** A written bundle and the source files that went into it (paths as esbuild names them). */
export interface Bundled {
  readonly path: string
  readonly inputs: ReadonlyArray<string>
}

/** Bundles `entry` (a file under `src/workers/`) into `outfile`. */
export const bundle = async (entry: string, outfile: string): Promise<Bundled> => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`./workers/${entry}`, import.meta.url))],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    alias: { vitest: harness },
    metafile: true,
    logLevel: "error"
  })
  return { path: outfile, inputs: Object.keys(result.metafile.inputs) }
}
