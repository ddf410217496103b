/**
 * `GET/PUT/DELETE /dev/faults`: the fault setting (domain/Faults.ts), stored so that replicas on
 * PostgreSQL share it (domain/SharedFaults.ts). A group of its own, so the developer menu's handlers
 * stay as they are.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { MockApi } from "../api/MockApi.js"
import * as S from "../api/Schemas.js"
import { MockConfig } from "../config/Config.js"
import { FaultSetting } from "../config/Faults.js"
import { decodeBody } from "../domain/DecodeBody.js"
import { Faults } from "../domain/Faults.js"
import { adoptStored, putShared } from "../domain/SharedFaults.js"
import { Store } from "../store/Store.js"
import { jsonObjectBody } from "../server/Body.js"
import { served } from "./Served.js"

/** The faults' handlers, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const FaultsHandlers = HttpApiBuilder.group(MockApi, "faults", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const faults = yield* Faults
    const store = yield* Store
    const set = (setting: FaultSetting) => Effect.map(putShared(store, faults, setting), S.success)
    return handlers
      .handle("getFaults", () => served(Effect.map(adoptStored(store, faults), S.success)))
      .handleRaw("setFaults", () =>
        served(Effect.flatMap(Effect.flatMap(jsonObjectBody(config.bodyLimitBytes), decodeBody(FaultSetting)), set))
      )
      .handle("clearFaults", () => served(set({})))
  })
)
