// A throwaway MariaDB for tests: Debian's mariadb-server (mariadb-install-db + mariadbd), a data
// directory in a temporary directory, a free loopback port, no grant tables (any user, no
// password) and no flushing at commit. Never for real data.
import { execFile } from "node:child_process"
import { existsSync, rmSync } from "node:fs"
import { delimiter, join } from "node:path"
import { promisify } from "node:util"
import { onFreePort, ownDir, spawnUntilReady, stopChild, tempDir } from "./internal.mjs"

const run = promisify(execFile)

const DATABASE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

const findOnPath = (name) => {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/usr/sbin"]
  return dirs.map((dir) => join(dir, name)).find((path) => existsSync(path))
}

/** `$MARIADB_BIN` (a directory with mariadbd, mariadb-install-db and mariadb), else Debian's, or undefined. */
export const mariadbBinaries = () => {
  const inDir = (dir) => ({
    server: join(dir, "mariadbd"),
    installDb: join(dir, "mariadb-install-db"),
    client: join(dir, "mariadb")
  })
  const binaries = process.env.MARIADB_BIN
    ? inDir(process.env.MARIADB_BIN)
    : { server: findOnPath("mariadbd"), installDb: findOnPath("mariadb-install-db"), client: findOnPath("mariadb") }
  return Object.values(binaries).every((path) => path !== undefined && existsSync(path)) ? binaries : undefined
}

export const startMariadb = async ({ maxConnections = 200 } = {}) => {
  const binaries = mariadbBinaries()
  if (binaries === undefined) {
    throw new Error(
      "MariaDB is not installed: apt-get install -y mariadb-server (or set MARIADB_BIN to a directory with mariadbd, mariadb-install-db and mariadb)"
    )
  }
  const dir = tempDir("pc-mariadb-")
  const data = join(dir, "data")
  // mariadbd refuses to run as root unless told which user to be; root is who we are then.
  const asUser = process.getuid?.() === 0 ? ["--user=root"] : []
  const env = { ...process.env, LC_ALL: "C", LANG: "C" }
  try {
    await run(
      binaries.installDb,
      ["--no-defaults", `--datadir=${data}`, "--auth-root-authentication-method=normal", "--skip-test-db", ...asUser],
      { cwd: dir, env }
    )
    const { child, port } = await onFreePort(
      async (port) => {
        const child = await spawnUntilReady(
          binaries.server,
          [
            "--no-defaults",
            ...asUser,
            `--datadir=${data}`,
            `--socket=${join(dir, "mariadbd.sock")}`,
            `--pid-file=${join(dir, "mariadbd.pid")}`,
            `--tmpdir=${dir}`,
            `--port=${port}`,
            "--bind-address=127.0.0.1",
            "--skip-name-resolve",
            // A test server: anyone may connect, and durability is not wanted, speed is.
            "--skip-grant-tables",
            "--innodb-flush-log-at-trx-commit=0",
            "--innodb-buffer-pool-size=32M",
            `--max-connections=${maxConnections}`
          ],
          { cwd: dir, env, ready: /ready for connections/ }
        )
        return { child, port }
      },
      (error) => /Address already in use|Bind on TCP\/IP port|Do you already have another/.test(String(error))
    )
    ownDir(child, dir)
    const createDatabase = async (name) => {
      if (!DATABASE.test(name)) throw new Error(`not a plain database name: ${name}`)
      await run(
        binaries.client,
        ["--no-defaults", "-h", "127.0.0.1", "-P", String(port), "-u", "root", "-e", `CREATE DATABASE \`${name}\``],
        { env }
      )
      return `mysql://root@127.0.0.1:${port}/${name}`
    }
    try {
      await createDatabase("test")
    } catch (error) {
      await stopChild(child, dir, "SIGKILL")
      throw error
    }
    let stopped
    return {
      url: `mysql://root@127.0.0.1:${port}/test`,
      port,
      dir,
      createDatabase,
      // SIGTERM is mariadbd's normal shutdown; with nothing flushed at commit it is quick.
      stop: () => (stopped ??= stopChild(child, dir, "SIGTERM"))
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}
