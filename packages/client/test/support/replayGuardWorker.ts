// One receiver process racing the others: opens the shared guard named by PC_GUARD_KIND on
// PC_GUARD_TARGET, says "ready", waits for "go" on stdin, asks the guard about every key in
// PC_GUARD_KEYS at once, and prints the keys it accepted as JSON.
import { createInterface } from "node:readline"
import { ask, entryOf, openGuard, type SharedGuardKind } from "./replayGuards.js"

const kind = process.env.PC_GUARD_KIND as SharedGuardKind
const target = process.env.PC_GUARD_TARGET!
const keys = JSON.parse(process.env.PC_GUARD_KEYS!) as Array<string>
const receivedAt = Number(process.env.PC_GUARD_NOW)

const { guard, close } = await openGuard(kind, target)
process.stdout.write("ready\n")
const lines = createInterface({ input: process.stdin })
for await (const line of lines) {
  if (line === "go") break
}
lines.close()
const answers = await Promise.all(keys.map((key) => ask(guard, entryOf(key, receivedAt))))
process.stdout.write(`${JSON.stringify(keys.filter((_, i) => answers[i] === false))}\n`)
await close()
