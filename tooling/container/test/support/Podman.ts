// Podman as these machines can run it, and the base images the Containerfile and compose.yaml name,
// made here when missing: no registry is reachable, so the build never pulls (`--pull=never`).
//
// Two facts of these machines: podman's default OCI runtime (crun) is not installed and its default
// limits cannot be set here (no CAP_SYS_RESOURCE: a container may not get more open files than
// `ulimit -Hn`, nor more processes than conmon has, 32768), so a containers.conf written for the run
// names runc and those limits. Nor is there a container network (no netavark, no CNI plugins): the
// containers share the host's network, so the callback receiver on 127.0.0.1 is reachable from them.
import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { run } from "@pc/test-support"

const STANDINS = fileURLToPath(new URL("../../standins/", import.meta.url))

/** Where the containers.conf and the stand-ins' build folders go. */
const workDir = join(tmpdir(), "pc-container-test")

/**
 * The environment for every podman command of the tests: CONTAINERS_CONF names the file written
 * here. Made by {@link podmanUnavailable}.
 */
export const podmanEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  CONTAINERS_CONF: join(workDir, "containers.conf")
})

/** This process's hard limit of `what` ("open files", "processes"), from /proc/self/limits. */
const hardLimit = (what: string): number => {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((row) => row.startsWith(`Max ${what} `))
  const hard = line?.slice(26).trim().split(/\s+/)[1]
  return hard === undefined || hard === "unlimited" ? Number.POSITIVE_INFINITY : Number(hard)
}

/**
 * Why podman cannot run containers here, or `undefined` when it can: writes the containers.conf
 * and runs nothing but `podman info`.
 */
export const podmanUnavailable = (): string | undefined => {
  for (const tool of ["podman", "podman-compose", "runc", "mmdebstrap"]) {
    if (spawnSync(tool, ["--version"], { stdio: "ignore" }).status !== 0) {
      return `${tool} is not installed (Debian's podman, podman-compose, runc and mmdebstrap; scripts/ensure-system-packages.mjs installs them)`
    }
  }
  mkdirSync(workDir, { recursive: true })
  const openFiles = Math.min(hardLimit("open files"), 1048576)
  const processes = Math.min(hardLimit("processes"), 32768)
  writeFileSync(
    join(workDir, "containers.conf"),
    [
      "[containers]",
      `default_ulimits = ["nofile=${openFiles}:${openFiles}", "nproc=${processes}:${processes}"]`,
      "[engine]",
      'runtime = "runc"',
      ""
    ].join("\n")
  )
  const info = spawnSync("podman", ["info"], { env: podmanEnv(), encoding: "utf8" })
  return info.status === 0 ? undefined : `podman info failed: ${info.stderr.trim().split("\n").at(-1)}`
}

/** Runs podman; rejects with its output unless it exits 0. */
export const podman = async (args: ReadonlyArray<string>, timeoutMs = 300_000): Promise<string> => {
  const result = await run("podman", args, { env: podmanEnv(), timeoutMs })
  if (result.code !== 0)
    throw new Error(`podman ${args.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

const imageExists = (tag: string): boolean =>
  spawnSync("podman", ["image", "exists", tag], { env: podmanEnv() }).status === 0

/** The Debian mirror apt already uses (deb822 `URIs:` or a one-line `deb` entry), else Debian's own. */
const debianMirror = (): string => {
  const files = [
    "/etc/apt/sources.list",
    ...listDir("/etc/apt/sources.list.d").map((f) => `/etc/apt/sources.list.d/${f}`)
  ]
  for (const file of files) {
    if (!existsSync(file)) continue
    const text = readFileSync(file, "utf8")
    const deb822 = /^URIs:\s*(\S+)/m.exec(text)
    if (deb822 !== null && !deb822[1]!.includes("security")) return deb822[1]!
    const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(text)
    if (oneLine !== null) return oneLine[1]!
  }
  return "http://deb.debian.org/debian"
}

const listDir = (dir: string): ReadonlyArray<string> => (existsSync(dir) ? readdirSync(dir) : [])

/** A Debian bookworm root filesystem (minbase, with `include`) from mmdebstrap, as a tar in `dir`. */
const debianRootfs = async (dir: string, include: ReadonlyArray<string>): Promise<void> => {
  const result = await run(
    "mmdebstrap",
    [
      "--variant=minbase",
      "--mode=root",
      "--format=tar",
      `--include=${include.join(",")}`,
      "bookworm",
      join(dir, "rootfs.tar"),
      debianMirror()
    ],
    { timeoutMs: 600_000 }
  )
  if (result.code !== 0) throw new Error(`mmdebstrap exited ${result.code}:\n${result.stderr.slice(-2000)}`)
}

/** The Node 24 binary of the `node` npm package (the one `npx -y node@24` runs). */
const node24Binary = async (): Promise<string> => {
  const result = await run("npx", ["-y", "node@24", "-p", "process.execPath"], { timeoutMs: 300_000 })
  if (result.code !== 0) throw new Error(`npx -y node@24 exited ${result.code}:\n${result.stderr}`)
  return result.stdout.trim()
}

/** Builds a stand-in image from standins/<name>.Containerfile in a folder `fill` prepares, then removes the folder. */
const buildStandIn = async (name: string, tag: string, fill: (dir: string) => Promise<void>): Promise<void> => {
  const dir = join(workDir, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  try {
    await fill(dir)
    await podman(
      [
        "build",
        "--pull=never",
        "--network",
        "host",
        "--format",
        "docker",
        "-f",
        join(STANDINS, `${name}.Containerfile`),
        "-t",
        tag,
        dir
      ],
      600_000
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The base images: the official ones where present, else the stand-ins, made once and kept in podman's storage. */
export const BASE_IMAGES = {
  node: "docker.io/library/node:24-bookworm-slim",
  postgres: "docker.io/library/postgres:15-bookworm"
} as const

/**
 * Makes whichever of {@link BASE_IMAGES} podman does not have (both at once: each is mostly
 * mmdebstrap's downloads); resolves the names of those it made.
 */
export const ensureBaseImages = async (): Promise<ReadonlyArray<string>> => {
  const made: Array<Promise<string>> = []
  if (!imageExists(BASE_IMAGES.node)) {
    made.push(
      buildStandIn("node", BASE_IMAGES.node, async (dir) => {
        const [binary] = await Promise.all([node24Binary(), debianRootfs(dir, ["ca-certificates"])])
        copyFileSync(binary, join(dir, "node"))
      }).then(() => BASE_IMAGES.node)
    )
  }
  if (!imageExists(BASE_IMAGES.postgres)) {
    made.push(
      buildStandIn("postgres", BASE_IMAGES.postgres, async (dir) => {
        await debianRootfs(dir, ["postgresql-15"])
        copyFileSync(join(STANDINS, "docker-entrypoint.sh"), join(dir, "docker-entrypoint.sh"))
      }).then(() => BASE_IMAGES.postgres)
    )
  }
  return Promise.all(made)
}
