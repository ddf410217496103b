/**
 * `POST /dev/merchants/{appKey}/audit`: runs the callback endpoint audit (callbacks/Audit.ts) and
 * answers its report. A group of its own, so the developer menu's handlers stay as they are.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { AuditRequest } from "../api/AuditSchemas.js"
import { MockApi } from "../api/MockApi.js"
import * as S from "../api/Schemas.js"
import { audit } from "../callbacks/Audit.js"
import { MockConfig } from "../Config.js"
import { jsonObjectBody } from "../http/Body.js"
import { decodeBody } from "../http/DecodeBody.js"
import { served } from "../http/Served.js"

/** The audit's handler, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const AuditHandlers = HttpApiBuilder.group(MockApi, "audit", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const context = yield* Effect.context<Effect.Effect.Context<ReturnType<typeof audit>>>()
    return handlers.handleRaw("auditEndpoint", ({ path }) =>
      served(
        Effect.gen(function* () {
          const input = yield* Effect.flatMap(jsonObjectBody(config.bodyLimitBytes), decodeBody(AuditRequest))
          const report = yield* Effect.provide(audit(path.appKey, input), context)
          return S.success(report)
        })
      )
    )
  })
)
