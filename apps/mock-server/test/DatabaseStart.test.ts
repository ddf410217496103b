// A mock started before its PostgreSQL is up (a compose file starts both at once) waits for it
// rather than failing its start (store/Database.ts): a real throwaway PostgreSQL, stopped while the
// mock starts and started again a moment later on the same port.
import { startPostgres, type ThrowawayPostgres } from "@pc/servers"
import * as LogLevel from "effect/LogLevel"
import { afterAll, expect, it } from "vitest"
import { defaults } from "../src/config/Config.js"
import { start } from "../src/main/Server.js"

let postgres: ThrowawayPostgres | undefined
afterAll(() => postgres?.stop())

it("waits for a PostgreSQL that is not up yet, saying so once, then serves on it", async () => {
  postgres = await startPostgres()
  const db = await postgres.createDatabase("not_up_yet")
  await postgres.down()
  let started = false
  const lines: Array<string> = []
  const starting = start(
    { ...defaults, port: 0, db },
    { logLevel: LogLevel.Info, logSink: (line) => lines.push(line) }
  ).then((mock) => {
    started = true
    return mock
  })
  // Refused for a while: the start neither fails nor finishes.
  await new Promise((resolve) => setTimeout(resolve, 2_500))
  expect(started).toBe(false)
  await postgres.up()
  const mock = await starting
  // One line for the whole wait (not one a second), naming the database without its password.
  const waiting = lines.filter((line) => line.includes("is not up yet"))
  expect(waiting).toHaveLength(1)
  expect(waiting[0]).toContain("ECONNREFUSED")
  expect(waiting[0]).toContain(new URL(db).host)
  try {
    const health = await fetch(`${mock.url}/healthz`)
    expect(health.status).toBe(200)
  } finally {
    await mock.close()
  }
})
