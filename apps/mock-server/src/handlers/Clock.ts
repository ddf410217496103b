/**
 * `GET /dev/clock` and `POST /dev/clock/advance`: the mock's clock (store/ClockStore.ts), moved by
 * the dispatcher so that what falls due on the moved clock goes out at once. A group of its own, so
 * the developer menu's handlers stay as they are.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { ClockAdvance } from "../api/ClockSchemas.js"
import { MockApi } from "../api/MockApi.js"
import * as S from "../api/Schemas.js"
import { Dispatcher } from "../callbacks/Dispatcher.js"
import { MockConfig } from "../config/Config.js"
import { decodeBody } from "../domain/DecodeBody.js"
import { isoTime } from "../store/IsoTime.js"
import { Store } from "../store/Store.js"
import { jsonObjectBody } from "../server/Body.js"
import { served } from "./Served.js"

/** The clock's answer for an offset read now. */
const stateOf = (offsetMs: number) =>
  Effect.map(Clock.currentTimeMillis, (nowMs) => S.success({ now: isoTime(nowMs + offsetMs), offsetMs }))

/** The clock's handlers, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const ClockHandlers = HttpApiBuilder.group(MockApi, "clock", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const store = yield* Store
    const dispatcher = yield* Dispatcher
    return handlers
      .handle("getClock", () => served(Effect.flatMap(store.clockOffset, stateOf)))
      .handleRaw("advanceClock", () =>
        served(
          Effect.gen(function* () {
            const input = yield* Effect.flatMap(jsonObjectBody(config.bodyLimitBytes), decodeBody(ClockAdvance))
            return yield* stateOf(yield* dispatcher.advanceClock(input.ms))
          })
        )
      )
  })
)
