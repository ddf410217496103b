#!/usr/bin/env node
// The `pc` bin as package.json names it. It is committed, not built, because pnpm links every
// workspace package's bins when it installs, before anything is built: a bin pointing into dist/
// made a fresh install warn "Failed to create bin ... ENOENT dist/bin.js" once for each package
// that depends on @pc/cli. It only loads the built command line.
import { existsSync } from "node:fs"

const built = new URL("../dist/bin.js", import.meta.url)
if (!existsSync(built)) {
  console.error("pc is not built yet: run `npx -y pnpm@10.34.8 --filter @pc/cli... build` (or `pnpm build`) first.")
  process.exit(1)
}
await import(built.href)
