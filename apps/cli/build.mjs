// Builds `pc` into one file, dist/bin.js, for plain Node 20. One bundle instead of hundreds of
// modules: `pc mock` starts in a fraction of the time and memory that loading every Effect module
// from node_modules took. better-sqlite3 (a native addon) and @pc/mock-server's key files are
// loaded from the installed packages at run time.
import { build } from "esbuild"
import { chmodSync, rmSync } from "node:fs"

rmSync("dist", { recursive: true, force: true })
await build({
  entryPoints: ["src/bin.ts"],
  outfile: "dist/bin.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["better-sqlite3"],
  // The bundled CommonJS dependencies (ws, better-sqlite3's loader) call require.
  banner: {
    js: 'import { createRequire as __pcCreateRequire } from "node:module";\nconst require = __pcCreateRequire(import.meta.url);'
  },
  legalComments: "linked",
  logLevel: "warning"
})
chmodSync("dist/bin.js", 0o755)
