// Settings: flags over environment over profile; the profile is written 0600, holds a key's path
// and never a key, and `config show` redacts the developer token.
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { freshConfigDir, pc, pcJson } from "./support/Pc.js"

interface Shown {
  readonly file: string
  readonly settings: Record<string, string | number | null>
  readonly sources: Record<string, string>
}

describe("pc config", () => {
  it("saves a 0600 profile and resolves flag > env > profile, redacting secrets", async () => {
    const dir = freshConfigDir()
    const env = { PC_CONFIG_DIR: dir }
    expect((await pc(["config", "set", "base-url", "http://127.0.0.1:4999/"], { env })).code).toBe(0)
    expect((await pc(["config", "set", "app-key", "7e57c0de-0000-4000-8000-000000000009"], { env })).code).toBe(0)
    expect((await pcJson(["config", "set", "dev-token", "s3cret-token"], { env })).json).toMatchObject({
      value: "<redacted>"
    })
    const file = join(dir, "config.json")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ "base-url": "http://127.0.0.1:4999" })

    const shown = await pcJson<Shown>(["config", "show"], {
      env: { ...env, PC_APP_KEY: "7e57c0de-0000-4000-8000-00000000000e" }
    })
    expect(shown.code).toBe(0)
    expect(shown.json.settings).toMatchObject({
      "base-url": "http://127.0.0.1:4999",
      "app-key": "7e57c0de-0000-4000-8000-00000000000e",
      "dev-token": "<redacted>",
      env: "sandbox"
    })
    expect(shown.json.sources).toMatchObject({ "base-url": "profile", "app-key": "env" })
    expect(shown.stdout).not.toContain("s3cret-token")
    const human = await pc(["config", "show"], { env })
    expect(human.stdout).toMatch(/app-key +7e57c0de-0000-4000-8000-000000000009 \(profile\)/)
    expect(human.stdout).not.toContain("s3cret-token")
  }, 180_000)

  it("refuses a key as a value, and bad values, with exit code 2 and the profile untouched", async () => {
    const dir = freshConfigDir()
    const env = { PC_CONFIG_DIR: dir }
    const pem = await pcJson(["config", "set", "key-file", "-----BEGIN PRIVATE KEY-----\nMIIE..."], { env })
    expect(pem.code).toBe(2)
    expect(pem.json).toMatchObject({ error: { kind: "Usage", message: "key-file takes a file path, not a key" } })
    const env2 = await pc(["config", "set", "env", "staging"], { env })
    expect(env2.code).toBe(2)
    expect(() => statSync(join(dir, "config.json"))).toThrow()
    // A bad value from the environment names where it came from.
    const bad = await pcJson(["config", "show"], { env: { ...env, PC_BASE_URL: "ftp://x" } })
    expect(bad.code).toBe(2)
    expect(bad.json).toMatchObject({ error: { message: expect.stringContaining("(from PC_BASE_URL)") } })
    // Usage errors from the parser itself: exit 2, nothing on stdout.
    const unknown = await pc(["config", "set"], { env })
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe("")
  }, 180_000)
})
