#!/usr/bin/env node
/**
 * The `pc` bin. It notes which processes launched it before it loads anything else, then loads the
 * command line: compiling that takes seconds on a busy machine, and a launcher killed meanwhile
 * (`kill` of a backgrounded `npx pc mock` that is still starting) must still be noticed, or the mock
 * would serve on, orphaned (see process/Launchers.ts).
 */
import { recordLaunchersAtStart } from "./process/Launchers.js"

recordLaunchersAtStart()
await import("./Main.js")
