/**
 * The `DevAccess` middleware of `api/MockApi.ts`: it declares the developer menu's bearer token in
 * the API definition, so `/openapi.json` and `/docs` document it and `MockClient` sends it. The
 * decision itself is made once, before routing, by `domain/auth/DevAccessPolicy.ts` (called from the app
 * wrapper, `server/App.ts`), so that unknown `/dev` paths are refused alike; by the time a /dev
 * handler runs, its request has passed that check, and this layer has nothing left to refuse.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { DevAccess } from "../api/MockApi.js"

/**
 * The middleware's layer: lets through what the app wrapper's token check already let through.
 *
 * @example
 * ```ts
 * HttpApiBuilder.api(MockApi).pipe(Layer.provide(DevAccessLive))
 * ```
 */
export const DevAccessLive = Layer.succeed(
  DevAccess,
  DevAccess.of({
    devToken: (_token) => Effect.void
  })
)
