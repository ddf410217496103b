// The throwaway servers start for real, answer on their loopback port, and leave nothing behind.
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { connect } from "node:net"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { mariadbBinaries, postgresBinDir, startMariadb, startPostgres, startRedis } from "../index.mjs"

const run = promisify(execFile)

/** Sends one raw RESP command and resolves the first reply line. */
const redisCommand = (port: number, command: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`${command}\r\n`))
    socket.once("data", (chunk) => {
      socket.end()
      resolve(chunk.toString("utf8").trim())
    })
    socket.once("error", reject)
  })

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(true))
  })

describe("throwaway servers", () => {
  it("PostgreSQL: answers SQL on its port, creates databases, and is gone after stop()", async () => {
    const pg = await startPostgres()
    try {
      expect(pg.url).toBe(`postgres://postgres@127.0.0.1:${pg.port}/postgres`)
      const url = await pg.createDatabase("servers_test")
      const { stdout } = await run(join(postgresBinDir()!, "psql"), [url, "-tAc", "SELECT current_database(), 6 * 7"])
      expect(stdout.trim()).toBe("servers_test|42")
    } finally {
      await pg.stop()
    }
    expect(existsSync(pg.dir)).toBe(false)
    expect(await refused(pg.port)).toBe(true)
  })

  it("PostgreSQL: restarts on the same port with its data, refusing connections while down", async () => {
    const pg = await startPostgres()
    const psql = (sql: string) => run(join(postgresBinDir()!, "psql"), [pg.url, "-tAc", sql])
    try {
      await psql("CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)")
      await pg.down()
      expect(await refused(pg.port)).toBe(true)
      await pg.up()
      expect((await psql("SELECT n FROM kept")).stdout.trim()).toBe("42")
      await pg.restart({ downMs: 100 })
      expect((await psql("SELECT n FROM kept")).stdout.trim()).toBe("42")
    } finally {
      await pg.stop()
    }
    expect(existsSync(pg.dir)).toBe(false)
  })

  it("MariaDB: answers SQL on its port, creates databases, and is gone after stop()", async () => {
    const mariadb = await startMariadb()
    try {
      expect(mariadb.url).toBe(`mysql://root@127.0.0.1:${mariadb.port}/test`)
      const url = await mariadb.createDatabase("servers_test")
      expect(url).toBe(`mysql://root@127.0.0.1:${mariadb.port}/servers_test`)
      const { stdout } = await run(mariadbBinaries()!.client, [
        "--no-defaults",
        "-h",
        "127.0.0.1",
        "-P",
        String(mariadb.port),
        "-u",
        "root",
        "-N",
        "-B",
        "servers_test",
        "-e",
        "SELECT DATABASE(), 6 * 7"
      ])
      expect(stdout.trim()).toBe("servers_test\t42")
      await expect(mariadb.createDatabase("x; DROP DATABASE test")).rejects.toThrow(/not a plain database name/)
    } finally {
      await mariadb.stop()
    }
    expect(existsSync(mariadb.dir)).toBe(false)
    expect(await refused(mariadb.port)).toBe(true)
  })

  it("Redis: answers commands on its port, keeps no snapshot, and is gone after stop()", async () => {
    const redis = await startRedis()
    try {
      expect(await redisCommand(redis.port, "PING")).toBe("+PONG")
      expect(await redisCommand(redis.port, "CONFIG GET save")).toMatch(/save\r?\n\$0/)
    } finally {
      await redis.stop()
    }
    expect(existsSync(redis.dir)).toBe(false)
    expect(await refused(redis.port)).toBe(true)
  })

  it("two servers of each kind run side by side on different ports", async () => {
    const servers = await Promise.all([startPostgres(), startPostgres(), startRedis(), startRedis()])
    try {
      expect(new Set(servers.map((s) => s.port)).size).toBe(4)
    } finally {
      await Promise.all(servers.map((s) => s.stop()))
    }
  })
})
