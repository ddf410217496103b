// A merchant's project on each package manager, on Node 24, with nothing compiled. The public
// packages are packed (as `pnpm pack-all` does) and published to a throwaway Verdaccio; then npm,
// pnpm (default settings: no build approved), Yarn berry (node-modules linker) and Bun each install
// `@pc/client @pc/mock-server @pc/cli` by name in an empty project and run the root README's quick
// start (its own install line swapped for the manager's) and `pc mock` on a SQLite file. Their
// PATH holds Node 24 and a handful of shell tools but no C compiler, no make and no python: an
// install that wanted to compile (better-sqlite3 without a prebuilt binary) would fail, not take
// minutes. No better-sqlite3 is installed at all: on Node 24 the mock runs on node:sqlite.
// Then each installs the client README's own install line in another empty project, and that
// README's Effect and Promise examples run there, on Node 24's type stripping, against a mock.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
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
  npmInstallNames,
  ok,
  run,
  until
} from "@pc/test-support"
import { platformKeyPems, startMock, testMerchantPrivateKeyPem } from "@pc/test-support/mock"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Registry, startRegistry } from "./support/Verdaccio.js"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const README = readFileSync(join(ROOT, "README.md"), "utf8")
const CLIENT_README = readFileSync(join(ROOT, "packages/client/README.md"), "utf8")
/** The Node the merchants' projects run on, from the npm registry. */
const NODE = "node@24"
const PNPM = "pnpm@10.34.8"
const YARN = "@yarnpkg/cli-dist@4.18.1"
const BUN = "bun@1.4.5"

const work = mkdtempSync(join(tmpdir(), "pc-managers-"))
let registry: Registry
/** PATH and npmrc of every merchant command: Node 24 first, no compiler. */
let merchant: NodeJS.ProcessEnv
/** Install time per manager, reported at the end. */
const timings: Array<string> = []

/** Commands left out of the merchants' PATH: compilers, assemblers, linkers, make, python, and Node 20. */
const WITHOUT =
  /^(cc|c\+\+|cpp|c89|c99|gcc.*|g\+\+.*|.*-linux-gnu-.*|clang.*|tcc|as|ld(\..*)?|make|gmake|cmake|ninja|python.*|node-gyp|node|nodejs)$/

/**
 * A folder of the commands the merchants' projects get: every command on this machine's PATH but
 * the ones {@link WITHOUT} names, Node 24 as `node` (npm's and npx's scripts then run on it), and
 * pnpm, yarn and bun through npx. node-gyp finds no compiler, make or python: it cannot build anything.
 */
const merchantBin = async (): Promise<string> => {
  const bin = join(work, "bin")
  mkdirSync(bin)
  const node24 = (await ok("npx", ["-y", NODE, "-p", "process.execPath"], { env: merchantEnv() })).stdout.trim()
  symlinkSync(node24, join(bin, "node"))
  const linked = new Set(["node", "pnpm", "yarn", "bun"])
  for (const dir of (process.env.PATH ?? "")
    .split(":")
    .filter((entry) => entry !== "" && !entry.includes("node_modules") && existsSync(entry))) {
    for (const command of readdirSync(dir)) {
      if (linked.has(command) || WITHOUT.test(command)) continue
      linked.add(command)
      symlinkSync(join(dir, command), join(bin, command))
    }
  }
  const via = (name: string, args: string) =>
    writeFileSync(join(bin, name), `#!/bin/sh\nexec npx -y ${args} "$@"\n`, { mode: 0o755 })
  via("pnpm", PNPM)
  via("yarn", `-p ${YARN} yarn`)
  via("bun", `-p ${BUN} bun`)
  return bin
}

beforeAll(async () => {
  mkdirSync(join(work, "registry"))
  const packs = join(work, "packs")
  ;[registry] = await Promise.all([
    startRegistry(join(work, "registry")),
    // The tarballs as a release would publish them (pnpm pack turns workspace: ranges into versions).
    ok("node", [join(ROOT, "scripts/pack-all.mjs"), packs], { cwd: ROOT, timeoutMs: 300_000 })
  ])
  const token = await registry.addUser("maintainer", "a-throwaway-password")
  const host = registry.url.replace(/^http:/, "")
  const npmrc = join(work, "npmrc")
  writeFileSync(
    npmrc,
    `@pc:registry=${registry.url}\n${host}:_authToken=${token}\nfund=false\naudit=false\nupdate-notifier=false\n`
  )
  const publisher = merchantEnv({ npm_config_userconfig: npmrc, npm_config_cache: join(work, "npm-cache") })
  for (const tarball of readdirSync(packs).filter((file) => file.endsWith(".tgz"))) {
    await ok("npm", ["publish", join(packs, tarball), "--registry", registry.url], { env: publisher })
  }
  const bin = await merchantBin()
  merchant = merchantEnv({
    PATH: bin,
    npm_config_userconfig: npmrc,
    npm_config_cache: join(work, "npm-cache"),
    // Yarn and Bun keep their caches here rather than in the user's home.
    YARN_CACHE_FOLDER: join(work, "yarn-cache"),
    YARN_ENABLE_TELEMETRY: "0",
    BUN_INSTALL_CACHE_DIR: join(work, "bun-cache")
  })
}, 900_000)

afterAll(async () => {
  killAll()
  if (timings.length > 0) console.log(`installs on Node 24:\n${timings.join("\n")}`)
  await rm(work, { recursive: true, force: true })
})

/** The quick start's packages (its `npm i` line) and pc. */
const PACKAGES = [...npmInstallNames(README), "@pc/cli"]
/** The client README's install line, as a merchant using only the client types it. */
const CLIENT_PACKAGES = npmInstallNames(CLIENT_README)

/** Each manager: its files beside package.json, then its install command for some packages. */
const managers: ReadonlyArray<{
  readonly name: string
  readonly files: (registryUrl: string) => Readonly<Record<string, string>>
  readonly add: ReadonlyArray<string>
}> = [
  { name: "npm", files: () => ({}), add: ["npm", "i"] },
  // Default settings: no onlyBuiltDependencies, so pnpm 10 runs no package's install script.
  { name: "pnpm", files: () => ({}), add: ["pnpm", "add"] },
  {
    name: "yarn",
    files: (url) => ({
      ".yarnrc.yml": [
        "nodeLinker: node-modules",
        "enableTelemetry: false",
        // Yarn 4 holds back releases younger than a day (npmMinimalAgeGate); these are a minute old.
        `npmPreapprovedPackages: ["@pc/*"]`,
        `unsafeHttpWhitelist: ["127.0.0.1"]`,
        "npmScopes:",
        "  pc:",
        `    npmRegistryServer: "${url}"`,
        // The npm registry itself (Yarn's default host is an alias of it).
        `npmRegistryServer: "https://registry.npmjs.org"`,
        ""
      ].join("\n"),
      "yarn.lock": ""
    }),
    add: ["yarn", "add"]
  },
  {
    name: "bun",
    files: (url) => ({ "bunfig.toml": `[install.scopes]\npc = "${url}"\n` }),
    add: ["bun", "add"]
  }
]

/** An empty merchant project for `manager`, with its files; removed by the caller. */
const emptyProject = (manager: (typeof managers)[number], what: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `pc-merchant-${manager.name}-${what}-`))
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: `merchant-${manager.name}`, version: "1.0.0", private: true, type: "commonjs" }, null, 2)}\n`
  )
  for (const [file, text] of Object.entries(manager.files(registry.url))) writeFileSync(join(dir, file), text)
  return dir
}

/** Runs the manager's install of `packages` in `dir`, records its time, and fails with its output. */
const install = async (manager: (typeof managers)[number], dir: string, packages: ReadonlyArray<string>) => {
  const command = [...manager.add, ...packages]
  const started = Date.now()
  const installed = await run(command[0]!, command.slice(1), { cwd: dir, env: merchant, timeoutMs: 900_000 })
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  expect(installed.code, `${installed.stdout}\n${installed.stderr}`).toBe(0)
  timings.push(`  ${manager.name}: ${seconds} s (${command.join(" ")})`)
}

describe("a merchant's project on Node 24", () => {
  it("has no compiler on its PATH", () => {
    const found = (command: string) =>
      execFileSync("sh", ["-c", `command -v ${command} || true`], { env: merchant, encoding: "utf8" }).trim()
    expect(found("node")).not.toBe("")
    for (const compiler of ["cc", "gcc", "c++", "g++", "clang", "make", "python3", "python"]) {
      expect(found(compiler), compiler).toBe("")
    }
    expect(execFileSync("node", ["-p", "process.versions.node"], { env: merchant, encoding: "utf8" })).toMatch(/^24\./)
  })

  it.each(managers)(
    "$name installs @pc/client @pc/mock-server @pc/cli; the README quick start and pc mock run",
    async (manager) => {
      const dir = emptyProject(manager, "quickstart")
      try {
        await install(manager, dir, PACKAGES)

        // Nothing compiled: better-sqlite3 is an optional peer, so none is installed, and no addon built.
        expect(existsSync(join(dir, "node_modules/better-sqlite3"))).toBe(false)
        expect(existsSync(join(dir, "node_modules/@pc/mock-server/package.json"))).toBe(true)

        // The quick start after its install line: the script, then `node quickstart.mjs`.
        const block = blockAfter(README, "quickstart").split("\n")
        expect(block.slice(0, 2)).toEqual(["npm init -y", expect.stringMatching(/^npm i /)])
        const quickstart = await run("sh", ["-e", "-c", block.slice(2).join("\n")], {
          cwd: dir,
          env: merchant,
          timeoutMs: 120_000
        })
        expect(quickstart.code, `${quickstart.stdout}\n${quickstart.stderr}`).toBe(0)
        expect(quickstart.stdout).toMatch(/^order created: (PC\S+) http:\/\/127\.0\.0\.1:\d+\/h5\/checkout\/\1$/m)
        expect(quickstart.stdout).toMatch(/^verified callback: order\.paid PC\S+ 10\.00 USD$/m)
        expect(quickstart.stderr).not.toMatch(/ExperimentalWarning|better-sqlite3/)

        // pc mock on a SQLite file, through the bin the manager linked.
        const port = await freePort()
        const mock = background(
          join(dir, "node_modules/.bin/pc"),
          ["mock", "--port", String(port), "--db", "./mock.sqlite"],
          { cwd: dir, env: merchant }
        )
        try {
          const [, url] = await mock.waitForOutput(/listening on (http:\/\/\S+)/, "the ready line")
          const health = (await (await fetch(`${url}/healthz`)).json()) as { code: string }
          expect(health.code).toBe("SUCCESS")
          mock.kill("SIGTERM")
          await until(async () => ((await accepting(port)) ? undefined : true), "the port did not close after SIGTERM")
          expect(await mock.exited).toBe(0)
          expect(mock.output()).not.toMatch(/ExperimentalWarning/)
        } finally {
          mock.kill("SIGKILL")
        }
        expect(existsSync(join(dir, "mock.sqlite"))).toBe(true)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    }
  )
})

describe("the client README's install line in a merchant's empty project on Node 24", () => {
  let mock: Awaited<ReturnType<typeof startMock>>
  beforeAll(async () => {
    mock = await startMock({ environment: "sandbox" })
  })
  afterAll(async () => {
    await mock?.close()
  })

  it("is @pc/client @pc/crypto-node and the Effect 3 peers, pinned", () => {
    expect(CLIENT_PACKAGES).toEqual(["@pc/client", "@pc/crypto-node", "effect@^3.22.4", "@effect/platform@^0.97.2"])
  })

  it.each(managers)(
    "$name: installs it; one effect@3 for the client, @effect/platform and the project; the Effect and Promise examples reach a verified order.paid",
    async (manager) => {
      const dir = emptyProject(manager, "client")
      try {
        await install(manager, dir, CLIENT_PACKAGES)
        // One copy of effect: the one the project imports is the one the client and the platform import.
        writeFileSync(
          join(dir, "effect-copies.mjs"),
          `import { createRequire } from "node:module"
import { realpathSync } from "node:fs"
const project = createRequire(import.meta.url)
const from = (name) => createRequire(realpathSync(project.resolve(name + "/package.json")))
const effect = (require) => realpathSync(require.resolve("effect/package.json"))
const copies = new Set([effect(project), effect(from("@pc/client")), effect(from("@effect/platform"))])
console.log(copies.size, ...[...copies].map((file) => project(file).version))
`
        )
        const copies = await run("node", ["effect-copies.mjs"], { cwd: dir, env: merchant, timeoutMs: 60_000 })
        expect(copies.code, copies.stderr).toBe(0)
        expect(copies.stdout.trim()).toMatch(/^1 3\.\d+\.\d+$/)

        const platformKey = (await platformKeyPems(mock))[1]!
        for (const { name, code } of blocksOf(CLIENT_README, "example")) {
          writeFileSync(join(dir, `example-${name}.mts`), code)
          const example = await run("node", [`example-${name}.mts`], {
            cwd: dir,
            env: {
              ...merchant,
              PC_BASE_URL: mock.url,
              PC_PRIVATE_KEY: testMerchantPrivateKeyPem(),
              PC_PLATFORM_KEY: platformKey,
              PORT: String(await freePort())
            },
            timeoutMs: 120_000
          })
          const output = `${name}: exit ${example.code}\n${example.stdout}\n${example.stderr}`
          expect(example.code, output).toBe(0)
          expect(example.stdout + example.stderr, output).toMatch(/callback verified:? .*order\.paid/)
        }
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    }
  )
})
