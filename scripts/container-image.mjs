// The `pc` container image (Containerfile at the root), with Docker or Podman:
//   node scripts/container-image.mjs build     the CLI deployed into .container/pc with its production
//                                              dependencies, then the image tagged payment-connect/pc:<version>
//   node scripts/container-image.mjs push      tags it <PC_IMAGE_REGISTRY>/pc:<version> and pushes it
//   node scripts/container-image.mjs release   what `pnpm release` runs: build, and push when
//                                              PC_IMAGE_REGISTRY is set; without an engine it says so and ends
// The build writes what it made (tag, image id, size, seconds) to .container/image.json, and the push its
// registry digest too. PC_CONTAINER_ENGINE picks the engine (docker, podman; `none` builds nothing);
// PC_IMAGE_BUILD_ARGS adds arguments to the build (the tests pass --pull=never).
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const contextDir = join(root, ".container")
const recordFile = join(contextDir, "image.json")

/** The CLI's version: the image's tag. */
export const cliVersion = () => JSON.parse(readFileSync(join(root, "apps/cli/package.json"), "utf8")).version

/** The local name of the image of this version. */
export const imageTag = (version = cliVersion()) => `payment-connect/pc:${version}`

/**
 * The name the README and compose.yaml use: the last image built here, whatever its version, so
 * that neither names a version that the next release makes stale.
 */
export const LATEST_TAG = "payment-connect/pc:latest"

const onPath = (name) => spawnSync(name, ["--version"], { stdio: "ignore" }).status === 0

/** docker or podman (PC_CONTAINER_ENGINE first), or undefined where neither runs. */
export const containerEngine = () => {
  const chosen = process.env.PC_CONTAINER_ENGINE
  if (chosen === "none") return undefined
  if (chosen !== undefined && chosen !== "") return chosen
  return ["docker", "podman"].find(onPath)
}

const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: "inherit" })

const pnpm = () => {
  const execpath = process.env.npm_execpath
  return execpath !== undefined && /pnpm/.test(execpath)
    ? [process.execPath, [execpath]]
    : ["npx", ["-y", "pnpm@10.34.8"]]
}

/**
 * Makes the build context: `pc` as npm would install it (its bin, dist and production dependencies,
 * the workspace packages as their published files), without better-sqlite3, an optional peer that
 * Node 24's node:sqlite replaces.
 */
export const prepareContext = () => {
  rmSync(contextDir, { recursive: true, force: true })
  mkdirSync(contextDir, { recursive: true })
  const [command, prefix] = pnpm()
  run(command, [...prefix, "--filter", "@pc/cli", "deploy", "--prod", "--legacy", join(contextDir, "pc")])
  const pnpmStore = join(contextDir, "pc/node_modules/.pnpm")
  if (existsSync(pnpmStore)) {
    for (const entry of execFileSync("ls", [pnpmStore], { encoding: "utf8" }).split("\n")) {
      if (entry.startsWith("better-sqlite3@")) rmSync(join(pnpmStore, entry), { recursive: true, force: true })
    }
  }
}

/** The id of the image `tag` names, or undefined where there is none. */
const imageId = (engine, tag) => {
  const result = spawnSync(engine, ["image", "inspect", "--format", "{{.Id}}", tag], { encoding: "utf8" })
  return result.status === 0 ? result.stdout.trim() : undefined
}

/** Builds the image from the Containerfile; resolves what .container/image.json records. */
export const buildImage = (engine, tag = imageTag()) => {
  const previous = imageId(engine, tag)
  prepareContext()
  const started = Date.now()
  const extra = (process.env.PC_IMAGE_BUILD_ARGS ?? "").split(" ").filter((arg) => arg !== "")
  // Podman writes OCI images by default, which have no HEALTHCHECK: the Docker format keeps it.
  const format = engine.endsWith("podman") ? ["--format", "docker"] : []
  run(engine, [
    "build",
    ...format,
    ...extra,
    "-f",
    join(root, "Containerfile"),
    "-t",
    tag,
    "-t",
    LATEST_TAG,
    contextDir
  ])
  const seconds = (Date.now() - started) / 1000
  const [id, size] = execFileSync(engine, ["image", "inspect", "--format", "{{.Id}} {{.Size}}", tag], {
    encoding: "utf8"
  })
    .trim()
    .split(" ")
  // A rebuild moves the tag: the image it named before would stay behind untagged, one per build.
  if (previous !== undefined && previous !== id) spawnSync(engine, ["rmi", previous], { stdio: "ignore" })
  const record = { tag, version: cliVersion(), id, sizeBytes: Number(size), buildSeconds: seconds }
  writeFileSync(recordFile, `${JSON.stringify(record, null, 2)}\n`)
  console.log(`built ${tag}: ${id}, ${(Number(size) / 1e6).toFixed(0)} MB, in ${seconds.toFixed(1)} s`)
  return record
}

/** Pushes the built image to PC_IMAGE_REGISTRY (e.g. ghcr.io/acme) as <registry>/pc:<version>. */
export const pushImage = (engine, registry = process.env.PC_IMAGE_REGISTRY) => {
  if (registry === undefined || registry === "") throw new Error("set PC_IMAGE_REGISTRY (e.g. ghcr.io/acme) to push")
  const version = cliVersion()
  const remote = `${registry.replace(/\/$/, "")}/pc:${version}`
  run(engine, ["tag", imageTag(version), remote])
  const digestFile = join(contextDir, "pushed-digest")
  run(engine, ["push", ...(engine.endsWith("podman") ? ["--digestfile", digestFile] : []), remote])
  const digest = existsSync(digestFile)
    ? readFileSync(digestFile, "utf8").trim()
    : execFileSync(engine, ["image", "inspect", "--format", "{{index .RepoDigests 0}}", remote], {
        encoding: "utf8"
      }).trim()
  const record = existsSync(recordFile) ? JSON.parse(readFileSync(recordFile, "utf8")) : {}
  writeFileSync(recordFile, `${JSON.stringify({ ...record, pushed: remote, digest }, null, 2)}\n`)
  console.log(`pushed ${remote}: ${digest}`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const action = process.argv[2] ?? "build"
  const engine = containerEngine()
  if (engine === undefined) {
    const why = "no container engine (docker or podman; PC_CONTAINER_ENGINE picks one)"
    if (action !== "release") {
      console.error(`${why}: cannot ${action} the image`)
      process.exit(1)
    }
    console.log(`${why}: the release publishes no image`)
    process.exit(0)
  }
  if (action === "build" || action === "release") buildImage(engine)
  if (action === "push" || (action === "release" && (process.env.PC_IMAGE_REGISTRY ?? "") !== "")) pushImage(engine)
}
