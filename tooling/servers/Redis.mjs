// A throwaway Redis for tests: Debian's redis-server, a temporary directory, a free loopback port,
// no persistence (no RDB snapshots, no AOF).
import { existsSync } from "node:fs"
import { delimiter, join } from "node:path"
import { onFreePort, ownDir, spawnUntilReady, stopChild, tempDir } from "./internal.mjs"

export const redisServerPath = () => {
  if (process.env.REDIS_SERVER) return existsSync(process.env.REDIS_SERVER) ? process.env.REDIS_SERVER : undefined
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/usr/sbin"]
  return dirs.map((dir) => join(dir, "redis-server")).find((path) => existsSync(path))
}

export const startRedis = async () => {
  const server = redisServerPath()
  if (server === undefined) {
    throw new Error("Redis is not installed: apt-get install -y redis-server (or set REDIS_SERVER to the binary)")
  }
  const dir = tempDir("pc-redis-")
  const { child, port } = await onFreePort(
    async (port) => {
      const child = await spawnUntilReady(
        server,
        [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--dir",
          dir,
          "--save",
          "",
          "--appendonly",
          "no",
          "--daemonize",
          "no",
          "--logfile",
          ""
        ],
        { cwd: dir, ready: /Ready to accept connections/ }
      )
      return { child, port }
    },
    (error) => /Address already in use|Could not create server TCP listening socket/.test(String(error))
  )
  ownDir(child, dir)
  let stopped
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop: () => (stopped ??= stopChild(child, dir, "SIGTERM"))
  }
}
