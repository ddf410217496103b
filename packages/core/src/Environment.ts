/**
 * The service's environments and the signature rule of each (spec 5.4).
 *
 * @since 0.1.0
 */

/**
 * Every environment the service runs: sandbox for integration, production for live money, gray beside production.
 *
 * @example
 * ```ts
 * import { Environment } from "@pc/core"
 *
 * Environment.environments.join(" | ") // "sandbox | production | gray"
 * ```
 */
export const environments = ["sandbox", "production", "gray"] as const

/**
 * One of {@link environments}.
 *
 * @example
 * ```ts
 * import { Environment } from "@pc/core"
 *
 * const fromEnv = process.env.PC_ENVIRONMENT
 * const environment: Environment.Environment = Environment.isEnvironment(fromEnv) ? fromEnv : "sandbox"
 * ```
 */
export type Environment = (typeof environments)[number]

/**
 * Tells whether a value names an environment.
 *
 * @example
 * ```ts
 * import { Environment } from "@pc/core"
 *
 * Environment.isEnvironment("gray") // true
 * Environment.isEnvironment("live") // false
 * ```
 */
export const isEnvironment = (value: unknown): value is Environment =>
  value === "sandbox" || value === "production" || value === "gray"

/**
 * Whether the service checks a request's signature (and with it timestamp and key version) in an
 * environment: sandbox never does; production and gray do for every request that has a body.
 *
 * @example
 * ```ts
 * import { Environment } from "@pc/core"
 *
 * Environment.requiresSignature("sandbox", true) // false
 * Environment.requiresSignature("production", true) // true
 * ```
 */
export const requiresSignature = (environment: Environment, hasBody: boolean): boolean =>
  environment !== "sandbox" && hasBody
