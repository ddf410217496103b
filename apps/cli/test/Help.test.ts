// Every pc command and group (except `mock`, which is the ship helper's) has --help text with an
// example. Walked in-process over the command tree, so a new command without one fails here.
import { CliConfig, CommandDescriptor, HelpDoc } from "@effect/cli"
import { HashMap } from "effect"
import { describe, expect, it } from "vitest"
import { callbacks } from "../src/commands/callbacks.js"
import { config } from "../src/commands/config.js"
import { keys } from "../src/commands/keys.js"
import { listen } from "../src/commands/listen.js"
import { logs } from "../src/commands/logs.js"
import { merchants } from "../src/commands/merchants.js"
import { orders } from "../src/commands/orders.js"
import { platformKeys } from "../src/commands/platformKeys.js"
import { sign } from "../src/commands/sign.js"
import { trigger } from "../src/commands/trigger.js"

const walk = (
  path: string,
  descriptor: CommandDescriptor.Command<unknown>,
  seen: Set<unknown> = new Set()
): Array<{ readonly path: string; readonly help: string }> => {
  seen.add(descriptor)
  const help = HelpDoc.toAnsiText(CommandDescriptor.getHelp(descriptor, CliConfig.defaultConfig))
  // getSubcommands also lists the command itself (and wrappers of it): each descriptor once.
  const children = [...HashMap.entries(CommandDescriptor.getSubcommands(descriptor))]
    .filter(([, child]) => !seen.has(child))
    .flatMap(([name, child]) => walk(`${path} ${name}`, child, seen))
  return [{ path, help }, ...children]
}

const groups = [keys, sign, callbacks, config, merchants, orders, platformKeys, trigger, listen, logs]

describe("--help", () => {
  const all = groups.flatMap((command) => walk("pc", command.descriptor))
  it("covers every command", () => {
    expect(all.length).toBeGreaterThanOrEqual(25)
  })
  it.each(all)("$path has an example", ({ help }) => {
    expect(help).toMatch(/Example: pc [a-z]/)
  })
})
