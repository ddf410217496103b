// A mock started before its PostgreSQL is up (a compose file starts both at once) waits for it
// rather than failing its start (store/Database.ts): a real throwaway PostgreSQL, stopped while the
// mock starts and started again a moment later on the same port.
import { startPostgres, type ThrowawayPostgres } from "@pc/servers"
import { afterAll, expect, it } from "vitest"
import { defaults } from "../src/config/Config.js"
import { start } from "../src/main/Server.js"

let postgres: ThrowawayPostgres | undefined
afterAll(() => postgres?.stop())

it("waits for a PostgreSQL that is not up yet, then serves on it", async () => {
  postgres = await startPostgres()
  const db = await postgres.createDatabase("not_up_yet")
  await postgres.down()
  let started = false
  const starting = start({ ...defaults, port: 0, db }).then((mock) => {
    started = true
    return mock
  })
  // Refused for a while: the start neither fails nor finishes.
  await new Promise((resolve) => setTimeout(resolve, 2_500))
  expect(started).toBe(false)
  await postgres.up()
  const mock = await starting
  try {
    const health = await fetch(`${mock.url}/healthz`)
    expect(health.status).toBe(200)
  } finally {
    await mock.close()
  }
})
