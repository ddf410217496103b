#!/usr/bin/env node
/**
 * The `pc` bin. It notes which processes launched it before it loads anything else, then runs the
 * command line (`main.cjs`, bundled from Main.ts) from V8's code cache (CodeCache.ts): compiling it
 * takes seconds on a busy machine, and a launcher killed meanwhile (`kill` of a backgrounded
 * `npx pc mock` that is still starting) must still be noticed, or the mock would serve on,
 * orphaned (see process/Launchers.ts).
 */
import { fileURLToPath } from "node:url"
import { runBundle } from "./CodeCache.js"
import { recordLaunchersAtStart } from "./process/Launchers.js"

recordLaunchersAtStart()
await runBundle(fileURLToPath(new URL("./main.cjs", import.meta.url)))
