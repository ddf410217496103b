/**
 * The one place where the developer menu and the dashboard's actions are authorised (the
 * `DevAccess` middleware of `api/MockApi.ts`). Bound to a loopback address the menu is open; the
 * developer token (`--dev-token`, `unauthorized` 401 without it on a non-loopback address) is
 * checked here by the exposure module when it is merged in.
 */
import { Effect, Layer } from "effect"
import { DevAccess } from "../api/MockApi.js"

/**
 * The authorisation of /dev routes: today every request passes (the mock binds loopback by default).
 *
 * @example
 * ```ts
 * HttpApiBuilder.api(MockApi).pipe(Layer.provide(DevAccessLive))
 * ```
 */
export const DevAccessLive = Layer.succeed(
  DevAccess,
  DevAccess.of({
    // The bearer token sent (empty when none). The exposure module decides here whether the
    // listening address requires it and fails with Unauthorized when it is missing or wrong.
    devToken: (_token) => Effect.void
  })
)
