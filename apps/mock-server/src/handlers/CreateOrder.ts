/**
 * `POST /openapi/v2/order/create`, the one production endpoint (spec 4.2), as the HttpApi route:
 * the work is CreateOrderFlow's, shared with the fast path that serves the same route.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { MockApi } from "../api/MockApi.js"
import { MockConfig } from "../config/Config.js"
import { signatureNote } from "../events/MockEvents.js"
import { currentRequestId } from "../server/App.js"
import { rawBodyOf } from "../server/Body.js"
import { ok } from "../api/Envelope.js"
import { ApiError } from "../domain/ApiError.js"
import { servedAs } from "./Served.js"
import * as Step from "../domain/Step.js"
import {
  type CommonWireError,
  type DuplicateOrder,
  type RateLimited,
  type SignError,
  withHeaders
} from "../api/WireErrors.js"
import { type CreateOrderOutcome, CreateOrderFlow } from "../domain/orders/CreateOrderFlow.js"

/** The create-order handler, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const CreateOrderHandlers = HttpApiBuilder.group(MockApi, "api", (handlers) =>
  Effect.gen(function* () {
    const flow = yield* CreateOrderFlow
    const config = yield* MockConfig
    /** What the signature check decided, on whatever answer: the note for the request's event (App.ts's finishRequest), the header on the response. */
    const keep = (checked: Pick<CreateOrderOutcome, "headers" | "note">) =>
      Effect.zipRight(FiberRef.set(signatureNote, checked.note), withHeaders(checked.headers))
    // handleRaw: the signature covers the exact bytes sent, so the body is read raw and never
    // decoded (and re-encoded) by the framework first.
    return handlers.handleRaw("createOrder", ({ request }) => {
      const source = NodeHttpServerRequest.toIncomingMessage(request)
      // The flow logs a refused signature without a fiber: it is given this request's id.
      const created = (bytes: Uint8Array) =>
        Effect.flatMap(currentRequestId, (requestId) =>
          Step.toEffect(flow.create({ headers: source.headers, bytes, requestId }))
        ).pipe(
          // The 500 (App.ts's answerFailure) carries the check's header and note too.
          Effect.catchTag("CreateStorageFailed", (failed) => Effect.zipRight(keep(failed), Effect.fail(failed.cause)))
        )
      const answered = Effect.flatMap(rawBodyOf(source, config.bodyLimitBytes), (bytes) =>
        Effect.flatMap(created(bytes), (outcome) =>
          Effect.zipRight(
            // A timeout fault (domain/orders/FaultedCreate.ts): closed without an answer.
            outcome.hangUp === true
              ? Effect.zipRight(
                  Effect.sync(() => source.destroy()),
                  keep(outcome)
                )
              : keep(outcome),
            outcome.answer instanceof ApiError ? Effect.fail(outcome.answer) : Effect.succeed(ok(outcome.answer))
          )
        )
      )
      return servedAs<CommonWireError | SignError | DuplicateOrder | RateLimited>()(answered)
    })
  })
)
