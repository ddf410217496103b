import { describe, expect, it } from "vitest"
import { environments, isEnvironment, requiresSignature } from "../src/Environment.js"

describe("environments", () => {
  it("names sandbox, production and gray, and nothing else", () => {
    expect([...environments].sort()).toEqual(["gray", "production", "sandbox"])
  })
})

describe("isEnvironment", () => {
  it.each(["sandbox", "production", "gray"])("accepts %j", (name) => {
    expect(isEnvironment(name)).toBe(true)
  })

  it.each([
    "Sandbox",
    "PRODUCTION",
    "Gray",
    "grey",
    "live",
    "prod",
    "test",
    " sandbox",
    "sandbox ",
    "",
    undefined,
    null,
    0,
    ["sandbox"],
    { environment: "sandbox" }
  ])("refuses %j", (value) => {
    expect(isEnvironment(value)).toBe(false)
  })

  it("agrees with the list of environments", () => {
    for (const name of environments) expect(isEnvironment(name)).toBe(true)
  })
})

describe("requiresSignature (spec 5.4)", () => {
  it.each([
    ["sandbox", true, false],
    ["sandbox", false, false],
    ["production", true, true],
    ["production", false, false],
    ["gray", true, true],
    ["gray", false, false]
  ] as const)("%s with body %s: %s", (environment, hasBody, expected) => {
    expect(requiresSignature(environment, hasBody)).toBe(expected)
  })
})
