// better-sqlite3 (under @effect/sql-sqlite-node, in @pc/mock-server) installs its native addon with
// prebuild-install, which downloads a prebuilt binary from GitHub's releases, and compiles SQLite
// from source (minutes on this machine) when it cannot. A merchant with internet gets the download;
// this machine reaches only the npm registry. So the test stands in for GitHub with prebuild-install's
// documented mirror setting (`npm_config_better_sqlite3_binary_host`): a loopback server that
// serves, for the same version and Node ABI only, the binary the workspace's install built. Any
// other version gets 404, and npm compiles it as it would without the mirror.
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

export interface Mirror {
  /** The value for `npm_config_better_sqlite3_binary_host`. */
  readonly url: string
  /** The version it has a binary of. */
  readonly version: string
  /** Paths asked for, and whether each was served. */
  readonly requests: ReadonlyArray<{ readonly path: string; readonly served: boolean }>
  readonly close: () => Promise<void>
}

export const startPrebuiltMirror = async (workspaceRoot: string): Promise<Mirror> => {
  const dir = dirname(
    createRequire(join(workspaceRoot, "apps/mock-server/package.json")).resolve("better-sqlite3/package.json")
  )
  const version = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version
  // prebuild-install's archive: build/Release/better_sqlite3.node, gzipped tar.
  const archive = execFileSync("tar", ["-czf", "-", "-C", dir, "build/Release/better_sqlite3.node"], {
    maxBuffer: 256 * 1024 * 1024
  })
  const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
  const requests: Array<{ path: string; served: boolean }> = []
  const server = createServer((request, response) => {
    const served = request.url === `/v${version}/${file}`
    requests.push({ path: request.url ?? "", served })
    if (served) response.writeHead(200, { "content-type": "application/gzip" }).end(archive)
    else response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    version,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
