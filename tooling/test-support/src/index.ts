// What the tests of this repository share, one copy of each (STYLE.md "One of each, in tests too").
// The mock fixture is the subpath `@pc/test-support/mock`: only the suites that start a mock load it.
export { type Event, listenEvents } from "./Events.js"
export { type Flaw, type FlawedEndpoint, startFlawedEndpoint, startHostile } from "./FlawedEndpoints.js"
export { readBody, headersOf } from "./Http.js"
export { accepting, freePort } from "../Net.mjs"
export { merchantEnv, npmProject } from "./Npm.js"
export { type PollOptions, until } from "./Poll.js"
export { background, type Finished, killAll, ok, type Running, run, type StartOptions } from "./Processes.js"
export { blockAfter, blocksOf, type MarkedBlock, markedBlocks, npmInstallNames } from "./Readme.js"
export {
  type Answer,
  type CapturedCallback,
  type Endpoint,
  type EndpointOptions,
  type ReceivedRequest,
  type Receiver,
  startEndpoint,
  startReceiver
} from "./Receiver.js"
export { publicPackages } from "./Workspace.js"
