// A throwaway npm registry: Verdaccio from npm, on a free loopback port, with its storage and its own
// config in a temp folder. No uplinks: it serves only what is published to it (the @pc packages), so
// everything else a project installs must come from the npm registry, as for a real merchant.
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { background, freePort, type Running, until } from "@pc/test-support"

export interface Registry {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string
  readonly process: Running
  /** Creates a user as `npm adduser` does and resolves its token. */
  readonly addUser: (name: string, password: string) => Promise<string>
  /** The registry's own record of a package (a packument), or undefined when it has none. */
  readonly packument: (name: string) => Promise<Packument | undefined>
}

export interface Packument {
  readonly "dist-tags": Readonly<Record<string, string>>
  readonly versions: Readonly<Record<string, { readonly dependencies?: Readonly<Record<string, string>> }>>
}

const config = (dir: string) => `storage: ${join(dir, "storage")}
auth:
  htpasswd:
    file: ${join(dir, "htpasswd")}
    max_users: 10
uplinks: {}
packages:
  "@*/*":
    access: $all
    publish: $authenticated
  "**":
    access: $all
    publish: $authenticated
web:
  enable: false
middlewares:
  audit:
    enabled: false
max_body_size: 100mb
log: { type: stdout, format: pretty, level: warn }
`

/** Starts Verdaccio with its files in `dir`; stop it with `killAll()` (its process group). */
export const startRegistry = async (dir: string): Promise<Registry> => {
  writeFileSync(join(dir, "config.yaml"), config(dir))
  const bin = join(dirname(createRequire(import.meta.url).resolve("verdaccio/package.json")), "bin/verdaccio")
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/`
  const verdaccio = background(process.execPath, [
    bin,
    "--config",
    join(dir, "config.yaml"),
    "--listen",
    `127.0.0.1:${port}`
  ])
  await until(
    async () => {
      if (verdaccio.child.exitCode !== null) throw new Error(`verdaccio exited:\n${verdaccio.output()}`)
      return (await fetch(`${url}-/ping`).catch(() => undefined))?.ok ? true : undefined
    },
    "verdaccio did not answer /-/ping",
    { timeoutMs: 120_000, intervalMs: 200 }
  )
  return {
    url,
    process: verdaccio,
    addUser: async (name, password) => {
      const response = await fetch(`${url}-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, password })
      })
      const body = (await response.json()) as { token?: string }
      if (!response.ok || body.token === undefined)
        throw new Error(`adduser: ${response.status} ${JSON.stringify(body)}`)
      return body.token
    },
    packument: async (name) => {
      const response = await fetch(`${url}${name.replace("/", "%2f")}`)
      return response.status === 404 ? undefined : ((await response.json()) as Packument)
    }
  }
}
