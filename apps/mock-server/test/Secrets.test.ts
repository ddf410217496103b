// Secrets never appear in logs, banners, errors or events (issue 32, point 7): the start banner
// shows a PostgreSQL URL with its password hidden; the developer token is printed once there, by
// design, and never in a request's log line or event, whether it was right or wrong. A real
// PostgreSQL (tooling/servers), real requests, every log line and event collected.
import { startPostgres, type ThrowawayPostgres } from "@pc/servers"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readyMessage } from "../src/main/Ready.js"
import { redactDatabaseUrl } from "../src/store/DatabaseUrl.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { createOrder } from "./support/mock.js"
import { findSecrets } from "./support/secrets.js"

// Trust authentication: the server takes any password, so the URL can carry one to leak.
const PASSWORD = `pw-${randomBytes(12).toString("hex")}`
const TOKEN = `tok-${randomBytes(18).toString("base64url")}`
let postgres: ThrowawayPostgres
let mock: RunningMock
const lines: Array<string> = []

beforeAll(async () => {
  postgres = await startPostgres()
  const url = new URL(await postgres.createDatabase("secrets"))
  url.username = "postgres"
  url.password = PASSWORD
  mock = await startMock({ db: url.toString(), devToken: TOKEN }, { logSink: (line) => lines.push(line) })
})
afterAll(async () => {
  await mock?.close()
  await postgres?.stop()
})

/** The events `/dev/events` sends while `work` runs. */
const eventsDuring = async (work: () => Promise<void>): Promise<string> => {
  const controller = new AbortController()
  const response = await fetch(`${mock.url}/dev/events`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: controller.signal
  })
  expect(response.status).toBe(200)
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ""
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) return
      text += value
    }
  })()
  await work()
  await new Promise((resolve) => setTimeout(resolve, 300))
  controller.abort()
  await pump
  return text
}

describe("secrets of a run", () => {
  it("the banner hides the database password and shows the developer token once", () => {
    const banner = readyMessage(mock)
    expect(findSecrets([banner], [PASSWORD])).toEqual([])
    expect(banner).toContain("postgres:***@127.0.0.1")
    expect(banner.split(TOKEN).length - 1).toBe(1)
  })

  it("no request log line or event carries the password or the token, right or wrong", async () => {
    const events = await eventsDuring(async () => {
      for (const authorization of [`Bearer ${TOKEN}`, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
        await fetch(`${mock.url}/dev/merchants`, { headers: { authorization } })
        await fetch(`${mock.url}/dev/platform-keys/rotate`, { method: "POST", headers: { authorization } })
      }
      await createOrder(mock.url, JSON.stringify({ orderId: "secrets-1", amount: "1.00", currency: "USD" }), {
        extraHeaders: { authorization: `Bearer ${TOKEN}` }
      })
    })
    expect(events).toContain(TEST_MERCHANT_APP_KEY)
    expect(lines.length).toBeGreaterThan(0)
    expect(findSecrets([...lines, events], [PASSWORD, TOKEN])).toEqual([])
  })

  it("redactDatabaseUrl hides a password in the user info and in the query, and leaves a file name", () => {
    expect(redactDatabaseUrl("postgres://u:p%40ss@db:5432/m")).toBe("postgres://u:***@db:5432/m")
    expect(redactDatabaseUrl("postgresql://u@db/m?password=x&sslmode=require")).toBe(
      "postgresql://u@db/m?password=***&sslmode=require"
    )
    expect(redactDatabaseUrl("postgres://u:p@[::1")).toBe("postgres://***")
    expect(redactDatabaseUrl(".pc-mock/sandbox.sqlite")).toBe(".pc-mock/sandbox.sqlite")
  })
})
