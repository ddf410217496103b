// Bundles a worker module for Bun, Deno and workerd the way a merchant's bundler would: one ESM file,
// platform-neutral (no Node built-ins), with `vitest` mapped to the small harness so that the shared
// suites run unchanged outside vitest.
import { build } from "esbuild"
import { fileURLToPath } from "node:url"

const harness = fileURLToPath(new URL("./Harness.ts", import.meta.url))

/** Bundles `entry` (a file under `src/workers/`) into `outfile`; resolves with `outfile`. */
export const bundle = async (entry: string, outfile: string): Promise<string> => {
  await build({
    entryPoints: [fileURLToPath(new URL(`./workers/${entry}`, import.meta.url))],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    alias: { vitest: harness },
    logLevel: "error"
  })
  return outfile
}
