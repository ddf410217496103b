// Releases for real. `pnpm release` (build, publint + attw, `changeset publish`) publishes every public
// package to a throwaway Verdaccio; then, in empty `npm init -y` projects outside the workspace, a
// merchant installs them by name, with only the @pc scope pointed at that registry (a temporary
// user npmrc) so that every other package comes from the npm registry: `npm i @pc/client
// @pc/mock-server @pc/cli`, `npx pc`, the mock README's Jest recipe, and the root README's quick
// start run exactly as written (and timed). One temporary npm cache for the run.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  accepting,
  background,
  blockAfter,
  blocksOf,
  freePort,
  killAll,
  merchantEnv,
  npmProject,
  ok,
  publicPackages,
  run,
  until
} from "@pc/test-support"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mirror, startPrebuiltMirror } from "./support/PrebuiltMirror.js"
import { type Registry, startRegistry } from "./support/Verdaccio.js"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const readme = (path: string) => readFileSync(join(ROOT, path), "utf8")

const PUBLIC = publicPackages(ROOT)
const versionIn = (dir: string) =>
  (JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as { version: string }).version

const work = mkdtempSync(join(tmpdir(), "pc-registry-"))
const cache = join(work, "npm-cache")
const projects: Array<string> = []
let registry: Registry
let mirror: Mirror
/** The environment of a merchant's commands: their own npmrc plus the @pc scope, this run's cache. */
let merchant: NodeJS.ProcessEnv

/**
 * The user's npmrc (machine settings such as `nodedir` stay) without any credential in it, plus
 * `lines`: no token of the user's is copied, or could reach the throwaway registry.
 */
const userNpmrc = (file: string, lines: ReadonlyArray<string>) => {
  const own = join(homedir(), ".npmrc")
  const kept = existsSync(own)
    ? readFileSync(own, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "" && !/_auth|_password|token|certfile|keyfile/i.test(line))
    : []
  const base = kept.map((line) => `${line}\n`).join("")
  writeFileSync(join(work, file), `${base}${lines.join("\n")}\n`)
  return join(work, file)
}

const project = async (name: string) => {
  const dir = await npmProject(`pc-merchant-${name}-`, merchant)
  projects.push(dir)
  return dir
}

beforeAll(async () => {
  mkdirSync(join(work, "registry"))
  ;[registry, mirror] = await Promise.all([startRegistry(join(work, "registry")), startPrebuiltMirror(ROOT)])
  merchant = merchantEnv({
    npm_config_userconfig: userNpmrc("merchant.npmrc", [`@pc:registry=${registry.url}`]),
    npm_config_cache: cache,
    npm_config_better_sqlite3_binary_host: mirror.url
  })
})

afterAll(async () => {
  killAll()
  await mirror?.close()
  // Asynchronously: a synchronous removal of these folders starves the worker's messages to vitest.
  await Promise.all([...projects, work].map((dir) => rm(dir, { recursive: true, force: true })))
})

describe("a release, published and installed by name", () => {
  it("pnpm release builds, checks and publishes every public package to the registry", async () => {
    const token = await registry.addUser("maintainer", "a-throwaway-password")
    const host = registry.url.replace(/^http:/, "")
    // `pnpm` on the PATH, as a maintainer has it (changeset publish runs `pnpm publish`): the pnpm
    // running this test when there is one, else the pinned one through npx.
    const bin = join(work, "bin")
    mkdirSync(bin)
    const pinned = (JSON.parse(readme("package.json")) as { packageManager: string }).packageManager
    const pnpmCli = process.env.npm_execpath
    writeFileSync(
      join(bin, "pnpm"),
      pnpmCli !== undefined && /pnpm(\.c?js)?$/.test(pnpmCli)
        ? `#!/bin/sh\nexec "${process.execPath}" "${pnpmCli}" "$@"\n`
        : `#!/bin/sh\nexec npx -y ${pinned} "$@"\n`,
      { mode: 0o755 }
    )
    const maintainer = merchantEnv({
      PATH: `${bin}:${process.env.PATH}`,
      npm_config_userconfig: userNpmrc("maintainer.npmrc", [
        `@pc:registry=${registry.url}`,
        `${host}:_authToken=${token}`
      ]),
      // changeset publish reads the scope's registry from the environment, npm from the npmrc.
      "npm_config_@pc:registry": registry.url,
      npm_config_cache: cache,
      // The release's image (postrelease) has its own test, tooling/container: here, none is built.
      PC_CONTAINER_ENGINE: "none"
    })
    // --no-git-tag: the release runs in this working copy, whose tags are not the test's to make.
    expect(Object.keys(PUBLIC).sort()).toEqual([
      "@pc/cli",
      "@pc/client",
      "@pc/core",
      "@pc/crypto-node",
      "@pc/crypto-web",
      "@pc/mock-server"
    ])
    const release = await run("pnpm", ["release", "--no-git-tag"], { cwd: ROOT, env: maintainer, timeoutMs: 600_000 })
    expect(release.code, `${release.stdout}\n${release.stderr}`).toBe(0)
    expect(release.stdout + release.stderr).toMatch(/packages published successfully/i)

    for (const [name, dir] of Object.entries(PUBLIC)) {
      const packument = await registry.packument(name)
      const version = versionIn(dir)
      expect(packument?.["dist-tags"].latest, name).toBe(version)
      // pnpm publish turned every workspace: range into a real one.
      for (const [dependency, range] of Object.entries(packument!.versions[version]!.dependencies ?? {})) {
        expect(range, `${name} -> ${dependency}`).not.toMatch(/^workspace:/)
        if (dependency in PUBLIC) expect(range).toBe(`^${versionIn(PUBLIC[dependency]!)}`)
      }
    }
    // The registry has no uplink: it holds the @pc packages and nothing else.
    expect(await registry.packument("effect")).toBeUndefined()
  })

  it("an empty project installs @pc/client @pc/mock-server @pc/cli by name; npx pc mock serves and stops", async () => {
    const dir = await project("by-name")
    const started = Date.now()
    await ok("npm", ["i", "@pc/client", "@pc/mock-server", "@pc/cli"], { cwd: dir, env: merchant, timeoutMs: 900_000 })
    console.log(`npm i @pc/client @pc/mock-server @pc/cli: ${((Date.now() - started) / 1000).toFixed(1)} s`)
    for (const [name, dir_] of Object.entries(PUBLIC)) {
      const installed = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as {
        version: string
      }
      expect(installed.version, name).toBe(versionIn(dir_))
    }
    // Third-party packages came from the npm registry (the throwaway one has none).
    expect(existsSync(join(dir, "node_modules/effect/package.json"))).toBe(true)

    const help = await ok("npx", ["pc", "--help"], { cwd: dir, env: merchant })
    expect(help.stdout).toContain("mock")

    const port = await freePort()
    const mock = background("npx", ["pc", "mock", "--port", String(port), "--db", ":memory:", "--env", "production"], {
      cwd: dir,
      env: merchant
    })
    try {
      const [, url] = await mock.waitForOutput(/listening on (http:\/\/\S+)/, "the ready line")
      const health = (await (await fetch(`${url}/healthz`)).json()) as { code: string; data: { environment: string } }
      expect(health).toMatchObject({ code: "SUCCESS", data: { environment: "production" } })
      // SIGTERM to npx alone: the mock behind it notices and closes its port.
      mock.child.kill("SIGTERM")
      await until(async () => ((await accepting(port)) ? undefined : true), "the port did not close after SIGTERM")
    } finally {
      mock.kill("SIGKILL")
    }
  })

  it("the mock README's Jest recipe: globalSetup starts the mock, test files reach it, globalTeardown stops it", async () => {
    const dir = projects.find((folder) => folder.includes("pc-merchant-by-name-"))!
    await ok("npm", ["i", "-D", "jest@^30.0.0"], { cwd: dir, env: merchant, timeoutMs: 900_000 })
    const recipes = blocksOf(readme("apps/mock-server/README.md"), "recipe").filter(({ name }) =>
      name.startsWith("jest-")
    )
    expect(recipes.map(({ name }) => name)).toEqual(["jest-config", "jest-setup", "jest-teardown"])
    for (const { code } of recipes) {
      // Each block's first line names its file: `// test/mock-setup.mjs`.
      const file = /^\/\/ ([\w./-]+)/.exec(code)![1]!
      mkdirSync(join(dir, file, ".."), { recursive: true })
      writeFileSync(join(dir, file), code)
    }
    writeFileSync(
      join(dir, "test/mock.test.js"),
      `test("the mock from globalSetup answers, with the test merchant's key", async () => {
  const health = await (await fetch(process.env.PC_BASE_URL + "/healthz")).json()
  expect(health.code).toBe("SUCCESS")
  expect(process.env.PC_PRIVATE_KEY).toMatch(/^-----BEGIN PRIVATE KEY-----/)
})
`
    )
    const jest = await run("npx", ["jest"], { cwd: dir, env: merchant, timeoutMs: 300_000 })
    expect(jest.stderr, jest.stdout).toMatch(/Tests:\s+1 passed, 1 total/)
    expect(jest.code).toBe(0)
  })

  it("the root README's quick start, as written, in an empty directory: a verified order.paid", async () => {
    const block = blockAfter(readme("README.md"), "quickstart")
    expect(block.split("\n")[0]).toBe("npm init -y")
    const dir = mkdtempSync(join(tmpdir(), "pc-quickstart-"))
    projects.push(dir)
    const started = Date.now()
    const quickstart = await run("sh", ["-e", "-c", block], { cwd: dir, env: merchant, timeoutMs: 900_000 })
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    console.log(`the README quick start (4 commands, empty directory, empty project): ${seconds} s`)
    expect(quickstart.code, `${quickstart.stdout}\n${quickstart.stderr}`).toBe(0)
    expect(quickstart.stdout).toMatch(/^order created: (PC\S+) http:\/\/127\.0\.0\.1:\d+\/h5\/checkout\/\1$/m)
    expect(quickstart.stdout).toMatch(/^verified callback: order\.paid PC\S+ 10\.00 USD$/m)
    expect(readdirSync(dir).sort()).toEqual(["node_modules", "package-lock.json", "package.json", "quickstart.mjs"])
  })
})
