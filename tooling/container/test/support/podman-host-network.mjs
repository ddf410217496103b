#!/usr/bin/env node
// podman, for podman-compose (its --podman-path): Debian bookworm's podman-compose 1.0.3 passes a
// service on `network_mode: host` its default network as well (`--net <project>_default
// --network-alias <service>`), which podman refuses ("cannot set multiple networks without bridge
// network mode"); later podman-compose versions do not. This drops those two options where
// `--network host` is given and runs podman with the rest, unchanged.
import { spawnSync } from "node:child_process"

const args = process.argv.slice(2)
const onHost = args.some((arg, i) => arg === "--network" && args[i + 1] === "host")
const kept = []
for (let i = 0; i < args.length; i++) {
  if (onHost && (args[i] === "--net" || args[i] === "--network-alias")) {
    i++
    continue
  }
  kept.push(args[i])
}
const result = spawnSync("podman", kept, { stdio: "inherit" })
process.exit(result.status ?? 1)
