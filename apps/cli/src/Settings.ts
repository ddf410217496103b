/**
 * Where `pc` finds the service and the merchant: flags first, then the environment (`PC_ENV`,
 * `PC_BASE_URL`, `PC_APP_KEY`, `PC_KEY_FILE`, `PC_KEY_VERSION`, `PC_DEV_TOKEN`), then the profile
 * that `pc config set` writes (`$PC_CONFIG_DIR`, else `$XDG_CONFIG_HOME/pc`, else `~/.config/pc`,
 * file `config.json`, mode 0600). The profile holds the path of the private key, never the key.
 */
import * as Options from "@effect/cli/Options"
import * as Environment from "@pc/core/Environment"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { homedir } from "node:os"
import { join } from "node:path"
import { CliFailure, run, usage } from "./Output.js"

/** The settings `pc` knows, by their names in the profile and in `pc config set`. */
export const settingNames = ["env", "base-url", "app-key", "key-file", "key-version", "dev-token"] as const

/** One setting's name. */
export type SettingName = (typeof settingNames)[number]

/** A profile: settings by name, all text. */
export type Profile = { readonly [K in SettingName]?: string | undefined }

const variables: { readonly [K in SettingName]: string } = {
  env: "PC_ENV",
  "base-url": "PC_BASE_URL",
  "app-key": "PC_APP_KEY",
  "key-file": "PC_KEY_FILE",
  "key-version": "PC_KEY_VERSION",
  "dev-token": "PC_DEV_TOKEN"
}

/** The mock's default address (`pc mock` without flags). */
export const DEFAULT_BASE_URL = "http://127.0.0.1:4010"

/** The directory of the profile. */
export const configDir = (): string =>
  process.env.PC_CONFIG_DIR ??
  (process.env.XDG_CONFIG_HOME ? join(process.env.XDG_CONFIG_HOME, "pc") : join(homedir(), ".config", "pc"))

/** The profile file. */
export const configFile = (): string => join(configDir(), "config.json")

/**
 * Reads the profile; an absent file is an empty profile. Fails with a usage `CliFailure` when the
 * file is not a JSON object.
 *
 * @example
 * ```ts
 * import { readProfile } from "./Settings.js"
 *
 * readProfile() // Effect of { "base-url": "http://127.0.0.1:4010", ... }
 * ```
 */
export const readProfile = (): Effect.Effect<Profile, CliFailure> =>
  Effect.tryPromise({
    try: async () => {
      let text: string
      try {
        text = await readFile(configFile(), "utf8")
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return {}
        throw error
      }
      const parsed: unknown = JSON.parse(text)
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not a JSON object")
      const profile: Record<string, string> = {}
      for (const name of settingNames) {
        const value = (parsed as Record<string, unknown>)[name]
        if (typeof value === "string") profile[name] = value
      }
      return profile as Profile
    },
    catch: (error) =>
      usage(
        `the profile ${configFile()} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
        "fix or delete the file, then run npx pc config set again"
      )
  })

/**
 * Writes the profile with mode 0600 (atomically: a new file renamed over the old one).
 *
 * @example
 * ```ts
 * import { writeProfile } from "./Settings.js"
 *
 * writeProfile({ "app-key": appKey, "key-file": "/home/me/keys/merchant-private.pem" })
 * ```
 */
export const writeProfile = (profile: Profile): Effect.Effect<string, CliFailure> =>
  Effect.tryPromise({
    try: async () => {
      const dir = configDir()
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const file = configFile()
      const temporary = `${file}.${process.pid}.tmp`
      await writeFile(temporary, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 })
      await chmod(temporary, 0o600)
      await rename(temporary, file)
      return file
    },
    catch: (error) =>
      usage(`cannot write the profile ${configFile()}: ${(error as NodeJS.ErrnoException).code ?? error}`)
  })

/**
 * Checks one setting's value before it is saved or used. A PEM key as a value is refused: the
 * profile and the environment hold the key file's path, never the key.
 */
export const checkSetting = (name: SettingName, value: string): Effect.Effect<string, CliFailure> => {
  if (value.includes("-----BEGIN")) {
    return Effect.fail(
      usage(`${name} takes a file path, not a key`, "save the key in a file (mode 0600) and give its path")
    )
  }
  switch (name) {
    case "env":
      return Environment.isEnvironment(value)
        ? Effect.succeed(value)
        : Effect.fail(usage(`env must be sandbox, production or gray, not ${JSON.stringify(value)}`))
    case "base-url": {
      let url: URL | undefined
      try {
        url = new URL(value)
      } catch {
        url = undefined
      }
      return url !== undefined && (url.protocol === "http:" || url.protocol === "https:")
        ? Effect.succeed(url.origin)
        : Effect.fail(
            usage(`base-url must be an http(s) URL such as ${DEFAULT_BASE_URL}, not ${JSON.stringify(value)}`)
          )
    }
    case "key-version":
      return /^[1-9][0-9]{0,8}$/.test(value)
        ? Effect.succeed(value)
        : Effect.fail(usage(`key-version must be a whole number from 1, not ${JSON.stringify(value)}`))
    default:
      return Effect.succeed(value)
  }
}

/** The settings flags, shared by every command that talks to the service or signs. */
export const flags = {
  env: Options.choice("env", Environment.environments).pipe(
    Options.optional,
    Options.withDescription("sandbox, production or gray (else PC_ENV, the profile, sandbox)")
  ),
  baseUrl: Options.text("base-url").pipe(
    Options.optional,
    Options.withDescription(`the service or mock (else PC_BASE_URL, the profile, ${DEFAULT_BASE_URL})`)
  ),
  appKey: Options.text("app-key").pipe(
    Options.optional,
    Options.withDescription("your merchant appKey (else PC_APP_KEY, the profile)")
  ),
  keyFile: Options.text("key-file").pipe(
    Options.optional,
    Options.withDescription("your PEM private key file (else PC_KEY_FILE, the profile)")
  ),
  keyVersion: Options.integer("key-version").pipe(
    Options.optional,
    Options.withDescription("the version of that key (else PC_KEY_VERSION, the profile, 1)")
  )
}

/** The parsed settings flags. */
export interface Flags {
  readonly env: Option.Option<Environment.Environment>
  readonly baseUrl: Option.Option<string>
  readonly appKey: Option.Option<string>
  readonly keyFile: Option.Option<string>
  readonly keyVersion: Option.Option<number>
}

/** The settings in force, each with where it came from. */
export interface Settings {
  readonly env: Environment.Environment
  readonly baseUrl: string
  readonly appKey: string | undefined
  readonly keyFile: string | undefined
  readonly keyVersion: number
  /** `Authorization: Bearer` for the mock's developer menu when it is not bound to loopback. */
  readonly devToken: string | undefined
  readonly sources: { readonly [K in SettingName]?: "flag" | "env" | "profile" | "default" }
}

/**
 * Resolves the settings: flag, then environment variable, then profile, then default; each value checked.
 *
 * Fails with a usage `CliFailure` naming the bad setting and where it came from.
 *
 * @example
 * ```ts
 * import { resolve } from "./Settings.js"
 *
 * resolve(options) // Effect of { env: "sandbox", baseUrl: "http://127.0.0.1:4010", ... }
 * ```
 */
export const resolve = (given: Partial<Flags> = {}): Effect.Effect<Settings, CliFailure> =>
  Effect.gen(function* () {
    const profile = yield* readProfile()
    const sources: { [K in SettingName]?: "flag" | "env" | "profile" | "default" } = {}
    const pick = (name: SettingName, flag: Option.Option<string | number> | undefined) =>
      Effect.gen(function* () {
        const fromFlag = flag === undefined ? undefined : Option.getOrUndefined(flag)
        const fromEnv = process.env[variables[name]]
        const [value, source] =
          fromFlag !== undefined
            ? [String(fromFlag), "flag" as const]
            : fromEnv !== undefined && fromEnv !== ""
              ? [fromEnv, "env" as const]
              : profile[name] !== undefined
                ? [profile[name], "profile" as const]
                : [undefined, "default" as const]
        if (value === undefined) return undefined
        sources[name] = source
        return yield* checkSetting(name, value).pipe(
          Effect.mapError(
            (failure) =>
              new CliFailure({
                ...failure,
                message: `${failure.message} (from ${source === "flag" ? `--${name}` : source === "env" ? variables[name] : configFile()})`
              })
          )
        )
      })
    const env = (yield* pick("env", given.env)) ?? "sandbox"
    const baseUrl = (yield* pick("base-url", given.baseUrl)) ?? DEFAULT_BASE_URL
    const appKey = yield* pick("app-key", given.appKey)
    const keyFile = yield* pick("key-file", given.keyFile)
    const keyVersion = Number((yield* pick("key-version", given.keyVersion)) ?? 1)
    const devToken = yield* pick("dev-token", undefined)
    return { env: env as Environment.Environment, baseUrl, appKey, keyFile, keyVersion, devToken, sources }
  })

/** The appKey, or a usage failure that says how to set one. */
export const requireAppKey = (settings: Settings): Effect.Effect<string, CliFailure> =>
  settings.appKey === undefined
    ? Effect.fail(usage("no appKey", "pass --app-key, set PC_APP_KEY, or run npx pc config set app-key APPKEY"))
    : Effect.succeed(settings.appKey)

/** The private key file, or a usage failure that says how to set one. */
export const requireKeyFile = (settings: Settings): Effect.Effect<string, CliFailure> =>
  settings.keyFile === undefined
    ? Effect.fail(
        usage("no private key file", "pass --key-file, set PC_KEY_FILE, or run npx pc config set key-file PATH")
      )
    : Effect.succeed(settings.keyFile)

/**
 * A command handler that first resolves the settings from its flags, and ends as every command
 * does (see `Output.run`): `--json` output, failures printed, exit code set.
 *
 * @example
 * ```ts
 * import { Command } from "@effect/cli"
 * import { withSettings } from "./Settings.js"
 *
 * Command.make("show", { baseUrl: flags.baseUrl, json }, withSettings((o, settings) => Console.log(settings.baseUrl)))
 * ```
 */
export const withSettings =
  <O extends Partial<Flags> & { readonly json: boolean }, R>(
    body: (options: O, settings: Settings) => Effect.Effect<void, CliFailure, R>
  ) =>
  (options: O): Effect.Effect<void, never, R> =>
    run(
      options.json,
      Effect.flatMap(resolve(options), (settings) => body(options, settings))
    )
