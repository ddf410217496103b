/**
 * `GET/PUT/DELETE /dev/faults`: the fault setting of this process (domain/Faults.ts). A group of its
 * own, so the developer menu's handlers stay as they are.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { MockApi } from "../api/MockApi.js"
import * as S from "../api/Schemas.js"
import { MockConfig } from "../config/Config.js"
import { FaultSetting } from "../config/Faults.js"
import { decodeBody } from "../domain/DecodeBody.js"
import { Faults } from "../domain/Faults.js"
import { jsonObjectBody } from "../server/Body.js"
import { served } from "./Served.js"

/** The faults' handlers, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const FaultsHandlers = HttpApiBuilder.group(MockApi, "faults", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const faults = yield* Faults
    const set = (setting: FaultSetting) =>
      Effect.sync(() => {
        faults.set(setting)
        return S.success(faults.setting())
      })
    return handlers
      .handle("getFaults", () => Effect.sync(() => S.success(faults.setting())))
      .handleRaw("setFaults", () =>
        served(Effect.flatMap(Effect.flatMap(jsonObjectBody(config.bodyLimitBytes), decodeBody(FaultSetting)), set))
      )
      .handle("clearFaults", () => set({}))
  })
)
