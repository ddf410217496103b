// Which storage failures mean "the database cannot be reached" (answered serviceUnavailable 503)
// and which stay bugs (internalError 500): the driver's errors as node-postgres and Node raise them.
import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import { isUnreachable } from "../src/store/Outage.js"

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code })
const wrapped = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

describe("isUnreachable", () => {
  it.each([
    ["connection refused", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
    ["connection reset", withCode("read ECONNRESET", "ECONNRESET")],
    ["admin shutdown (57P01)", withCode("terminating connection due to administrator command", "57P01")],
    ["crash shutdown (57P02)", withCode("terminating connection because of crash of another server process", "57P02")],
    ["starting up (57P03)", withCode("the database system is starting up", "57P03")],
    ["connection failure (08006)", withCode("connection failure", "08006")],
    ["a connection ended under the driver", new Error("Connection terminated unexpectedly")]
  ])("%s is the database away", (_, cause) => {
    expect(isUnreachable(wrapped(cause))).toBe(true)
  })

  it.each([
    ["a unique violation (23505)", withCode("duplicate key value violates unique constraint", "23505")],
    ["a syntax error (42601)", withCode("syntax error at or near", "42601")],
    ["an error without a code", new Error("something else")],
    ["no cause", undefined]
  ])("%s is not", (_, cause) => {
    expect(isUnreachable(wrapped(cause))).toBe(false)
  })
})
