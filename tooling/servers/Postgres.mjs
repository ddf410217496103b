// A throwaway PostgreSQL for tests: Debian's binaries (initdb + postgres), a cluster in a temporary
// directory, a free loopback port, trust authentication and no fsync. Never for real data.
import { execFile } from "node:child_process"
import { chownSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { onFreePort, ownDir, spawnUntilReady, stopChild, tempDir } from "./internal.mjs"

const run = promisify(execFile)

export const postgresBinDir = () => {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, "initdb")) ? process.env.PG_BIN : undefined
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
  return versions.map((v) => join(root, v, "bin")).find((bin) => existsSync(join(bin, "initdb")))
}

/** postgres refuses to run as root: as root, run it as the `postgres` user (Debian's package makes it) or `nobody`. */
const serverUser = () => {
  if (process.getuid?.() !== 0) return undefined
  const users = new Map(
    readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .map((line) => line.split(":"))
      .filter((fields) => fields.length > 3)
      .map(([name, , uid, gid]) => [name, { uid: Number(uid), gid: Number(gid) }])
  )
  const user = users.get("postgres") ?? users.get("nobody")
  if (user === undefined)
    throw new Error("running as root, and there is neither a postgres nor a nobody user to run postgres as")
  return user
}

export const startPostgres = async ({ maxConnections = 200 } = {}) => {
  const bin = postgresBinDir()
  if (bin === undefined) {
    throw new Error("PostgreSQL is not installed: apt-get install -y postgresql (or set PG_BIN to its bin directory)")
  }
  const user = serverUser()
  const dir = tempDir("pc-postgres-")
  const data = join(dir, "data")
  if (user !== undefined) chownSync(dir, user.uid, user.gid)
  const asUser = user === undefined ? {} : { uid: user.uid, gid: user.gid }
  const env = { ...process.env, LC_ALL: "C", LANG: "C" }
  let child
  try {
    await run(
      join(bin, "initdb"),
      ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      {
        ...asUser,
        cwd: dir,
        env
      }
    )
    const launch = (port) =>
      spawnUntilReady(
        join(bin, "postgres"),
        [
          "-D",
          data,
          "-p",
          String(port),
          "-c",
          "listen_addresses=127.0.0.1",
          "-c",
          `unix_socket_directories=${dir}`,
          "-c",
          `max_connections=${maxConnections}`,
          // A test server: durability is not wanted, speed is.
          "-c",
          "fsync=off",
          "-c",
          "synchronous_commit=off",
          "-c",
          "full_page_writes=off"
        ],
        { ...asUser, cwd: dir, env, ready: /database system is ready to accept connections/ }
      )
    const { port } = await onFreePort(
      async (port) => {
        child = await launch(port)
        return { port }
      },
      (error) => /could not bind|Address already in use|could not create listen socket/.test(String(error))
    )
    ownDir(child, dir)
    let stopped
    // A restart for tests of what clients do when the server goes away and comes back: the same
    // data directory and the same port, so every URL handed out stays valid.
    const down = async () => {
      if (stopped !== undefined) throw new Error("this PostgreSQL was stopped for good")
      await stopChild(child, dir, "SIGINT", 10_000, { keepDir: true })
    }
    const up = async () => {
      if (stopped !== undefined) throw new Error("this PostgreSQL was stopped for good")
      if (child.exitCode === null && child.signalCode === null) return
      child = await launch(port)
      ownDir(child, dir)
    }
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      dir,
      createDatabase: async (name) => {
        await run(join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name], { env })
        return `postgres://postgres@127.0.0.1:${port}/${name}`
      },
      // SIGINT is postgres's fast shutdown: clients are disconnected, nothing is waited for.
      down,
      up,
      restart: async ({ downMs = 0 } = {}) => {
        await down()
        if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs))
        await up()
      },
      stop: () => (stopped ??= stopChild(child, dir, "SIGINT"))
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}
