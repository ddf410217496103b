// pnpm bench: every hot path as a ratio against its raw baseline, measured in the same run, with
// the machine's facts. Exits non-zero when a ratio falls under its target.
import { readFileSync } from "node:fs"
import { callbackLatency } from "./callbacks.js"
import { cryptoBench } from "./crypto.js"
import { httpBench } from "./http.js"
import { machine } from "./measure.js"

const keyFile = (name: string) => new URL(`../../apps/mock-server/test-merchant/${name}`, import.meta.url).pathname
const privatePem = readFileSync(keyFile("TEST-ONLY-private-key.pem"), "utf8")
const publicPem = readFileSync(keyFile("TEST-ONLY-public-key.pem"), "utf8")

const targets: Record<string, number> = {
  "node sign": 0.95,
  "node verify": 0.95,
  "web sign": 0.95,
  "web verify": 0.95,
  "mock signed create": 0.8
}

const results: Record<string, { baseline: number; candidate: number; ratio: number }> = {
  ...(await cryptoBench(privatePem, publicPem)),
  "mock signed create": await httpBench(privatePem, keyFile("TEST-ONLY-public-key.pem"))
}

console.log(`machine: node ${machine().node}, ${machine().cpu}, ${machine().cores} cores`)
console.log("path                 baseline ops/s   candidate ops/s   ratio   target")
let failed = false
for (const [name, r] of Object.entries(results)) {
  const target = targets[name]!
  const ok = r.ratio >= target
  failed ||= !ok
  console.log(
    `${name.padEnd(20)} ${r.baseline.toFixed(0).padStart(15)} ${r.candidate.toFixed(0).padStart(17)}   ${r.ratio.toFixed(2)}    ${target}${ok ? "" : "  BELOW TARGET"}`
  )
}
const latency = await callbackLatency(privatePem)
console.log(
  `callback latency (pay answered -> receiver has the signed callback, ${latency.orders} orders): ` +
    `median ${latency.medianMs.toFixed(1)} ms, p95 ${latency.p95Ms.toFixed(1)} ms, max ${latency.maxMs.toFixed(1)} ms`
)
process.exitCode = failed ? 1 : 0
