// Bun, Deno and workerd as npm ships them (the `bun`, `deno` and `workerd` packages), each serving
// one worker-shaped module (`export default { fetch(request, env) }`) on 127.0.0.1 with its own
// server: `Bun.serve`, `Deno.serve`, and a workerd config. Node drives them over real HTTP.
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, dirname, join } from "node:path"
import { startProgram } from "./Process.js"

const require = createRequire(import.meta.url)
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`))

/** The runtimes other than Node and Chromium that the libraries claim. */
export type RuntimeName = "bun" | "deno" | "workerd"

/** A runtime's binary and how it names its version. */
export interface Runtime {
  readonly name: RuntimeName
  readonly binary: string
  /** As the binary reports it (`bun --version`, `deno --version`, `workerd --version`). */
  readonly version: string
}

const versionOf = (binary: string, pattern: RegExp): string => {
  const output = execFileSync(binary, ["--version"], { encoding: "utf8" })
  const match = pattern.exec(output)
  if (match?.[1] === undefined) throw new Error(`cannot read the version of ${binary} from: ${output}`)
  return match[1]
}

/** Finds the three runtimes in this package's devDependencies; throws naming one that is missing. */
export const runtimes = (): ReadonlyArray<Runtime> => {
  const bun = join(packageDir("bun"), "bin", "bun.exe")
  const deno = join(packageDir("deno"), "deno")
  const workerd = join(packageDir("workerd"), "bin", "workerd")
  return [
    { name: "bun", binary: bun, version: versionOf(bun, /^(\d+\.\d+\.\d+)/) },
    { name: "deno", binary: deno, version: versionOf(deno, /^deno (\S+)/) },
    { name: "workerd", binary: workerd, version: versionOf(workerd, /^workerd (\S+)/) }
  ]
}

/** A worker-shaped module served by one runtime. */
export interface Served {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** Everything the runtime printed so far (its console, its errors). */
  output(): string
  close(): Promise<void>
}

// Printed by the Bun and Deno launchers once they listen; workerd reports on its control descriptor.
const LISTENING = "pc-runtime-listening "

const bunLauncher = (module: string, env: string) => `import worker from "./${module}"
const env = ${env}
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => worker.fetch(request, env) })
console.log(${JSON.stringify(LISTENING)} + server.port)
`

const denoLauncher = (module: string, env: string) => `import worker from "./${module}"
const env = ${env}
Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(${JSON.stringify(LISTENING)} + port) },
  (request) => worker.fetch(request, env)
)
`

// Every binding is a text binding, the way a worker reads `env.NAME` under wrangler's `vars`.
const workerdConfig = (
  module: string,
  env: Readonly<Record<string, string>>
) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # The worker's fetch() may reach the mock on loopback; workerd's default outbound allows public addresses only.
    (name = "internet", network = (allow = ["public", "local"]))
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")]
);
const worker :Workerd.Worker = (
  modules = [(name = "${module}", esModule = embed "${module}")],
  compatibilityDate = "2026-01-01",
  bindings = [${Object.keys(env)
    .map((name) => `(name = "${name}", text = embed "env-${name}.txt")`)
    .join(", ")}]
);
`

/**
 * Serves `modulePath` (an ESM bundle whose default export has `fetch(request, env)`) with the
 * runtime's own server on 127.0.0.1 and a free port; `env` is what the module gets as `env`.
 * Launcher files are written beside the module. Rejects with the runtime's output when it exits
 * or does not listen within `startTimeoutMs`.
 */
export const serve = (
  runtime: Runtime,
  modulePath: string,
  env: Readonly<Record<string, string>>,
  startTimeoutMs = 30_000
): Promise<Served> => {
  const dir = dirname(modulePath)
  const module = basename(modulePath)
  let args: Array<string>
  if (runtime.name === "bun") {
    writeFileSync(join(dir, "bun-launcher.mjs"), bunLauncher(module, JSON.stringify(env)))
    args = ["run", join(dir, "bun-launcher.mjs")]
  } else if (runtime.name === "deno") {
    writeFileSync(join(dir, "deno-launcher.mjs"), denoLauncher(module, JSON.stringify(env)))
    // Only loopback, to listen and to reach the mock: no file, env or other network access.
    args = ["run", "--no-prompt", "--allow-net=127.0.0.1", join(dir, "deno-launcher.mjs")]
  } else {
    for (const [name, value] of Object.entries(env)) writeFileSync(join(dir, `env-${name}.txt`), value)
    writeFileSync(join(dir, "workerd.capnp"), workerdConfig(module, env))
    args = ["serve", join(dir, "workerd.capnp"), "--control-fd=3"]
  }
  const program = startProgram(runtime.binary, args, {
    cwd: dir,
    // Deno and Bun keep caches under HOME: one per run, so nothing outside the temporary folder changes.
    env: { ...process.env, DENO_DIR: join(dir, ".deno"), DENO_NO_UPDATE_CHECK: "1", BUN_INSTALL: join(dir, ".bun") },
    extraFds: runtime.name === "workerd" ? 1 : 0
  })
  const { child, output, stop: close } = program
  return new Promise<Served>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer)
      void close().then(() => reject(new Error(`${runtime.name} ${runtime.version} ${why}; its output:\n${output()}`)))
    }
    const timer = setTimeout(() => fail(`did not listen within ${startTimeoutMs} ms`), startTimeoutMs)
    const listening = (port: number) => {
      clearTimeout(timer)
      resolve({ url: `http://127.0.0.1:${port}`, output, close })
    }
    child.once("exit", (code, signal) => fail(`exited (${code ?? signal}) before it listened`))
    if (runtime.name === "workerd") {
      let control = ""
      child.stdio[3]?.on("data", (chunk: Buffer) => {
        control += chunk.toString("utf8")
        const lines = control.split("\n")
        control = lines.pop() ?? "" // an unfinished line waits for its end
        for (const line of lines) {
          const message = JSON.parse(line) as { event?: string; port?: number }
          if (message.event === "listen" && typeof message.port === "number") listening(message.port)
        }
      })
    } else {
      program.stdout.on("data", () => {
        const match = new RegExp(`${LISTENING}(\\d+)`).exec(output())
        if (match?.[1] !== undefined) listening(Number(match[1]))
      })
    }
  })
}
