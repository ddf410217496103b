// The workspace's public packages, as the release sees them: every packages/* and apps/* folder
// whose package.json is not private.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * Public package name -> its folder, relative to the workspace root `root`.
 *
 * @example
 * ```ts
 * expect(publicPackages(ROOT)["@pc/core"]).toBe("packages/core")
 * ```
 */
export const publicPackages = (root: string): Readonly<Record<string, string>> =>
  Object.fromEntries(
    ["packages", "apps"].flatMap((group) =>
      readdirSync(join(root, group), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) => {
          const dir = `${group}/${entry.name}`
          try {
            const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as {
              readonly name: string
              readonly private?: boolean
            }
            return manifest.private === true ? [] : [[manifest.name, dir] as const]
          } catch {
            return []
          }
        })
    )
  )
