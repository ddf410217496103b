// What the process and README tests share (one private test-support package, STYLE.md "One of each").
export { accepting, freePort } from "./Net.mjs"
export { until } from "./Poll.mjs"
export { background, killAll, ok, run } from "./Processes.mjs"
export { merchantEnv, npmProject } from "./Npm.mjs"
export { blockAfter, blocksOf, markedBlocks, npmInstallNames } from "./Readme.mjs"
export { publicPackages } from "./Workspace.mjs"
