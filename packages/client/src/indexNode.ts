/**
 * `@pc/client` as Node loads it (the `node` export condition of "."): the same modules as the index,
 * except that the `Promise` namespace is the facade's Node build, which sends on `node:http` (see
 * `PromiseNode`), so the facade behaves alike whether it is imported as `@pc/client/promise` or as
 * this namespace.
 *
 * @since 0.1.0
 */
export * from "./index.js"
// An explicit export wins over the star export's `Promise` of the same name.
export * as Promise from "./PromiseNode.js"
