// `pnpm pack-all [folder]`: writes the tarball of every public package into one folder (default
// `.packs/`), after `pnpm pack-all`'s build. pnpm pack turns `workspace:^` into real version ranges,
// and each package's prepack refuses to pack without its build.
import { spawn } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const out = resolve(process.argv[2] ?? join(root, ".packs"))

/** Folders of the public packages: every packages/* and apps/* whose package.json is not private. */
const publicPackages = () =>
  ["packages", "apps"].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, group, entry.name))
      .filter((dir) => {
        try {
          return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).private !== true
        } catch {
          return false
        }
      })
  )

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const pnpm = process.env.npm_execpath
// Inside `pnpm pack-all` npm_execpath is pnpm itself; run alone, fall back to the pinned pnpm.
const [command, args] =
  pnpm !== undefined && /pnpm/.test(pnpm)
    ? [process.execPath, [pnpm, "pack", "--pack-destination", out]]
    : ["npx", ["-y", "pnpm@10.34.8", "pack", "--pack-destination", out]]
// The packages are packed side by side: each is its own pnpm process (and its prepack), mostly
// start-up and compression, so together they take little longer than the slowest one.
const packed = await Promise.allSettled(
  publicPackages().map(
    (dir) =>
      new Promise((resolve, reject) => {
        const child = spawn(command, args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
        child.once("error", reject)
        child.once("exit", (code) => (code === 0 ? resolve(dir) : reject(new Error(`packing ${dir} exited ${code}`))))
      })
  )
)
const failed = packed.filter((result) => result.status === "rejected")
if (failed.length > 0) {
  for (const { reason } of failed) console.error(reason instanceof Error ? reason.message : reason)
  process.exit(1)
}
console.log(
  readdirSync(out)
    .map((file) => join(out, file))
    .join("\n")
)
