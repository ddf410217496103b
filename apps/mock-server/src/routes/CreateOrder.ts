/**
 * `POST /openapi/v2/order/create`, the one production endpoint (spec 4.2), as the HttpApi route:
 * the work is CreateOrderFlow's, shared with the fast path that serves the same route.
 */
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"
import { MockApi } from "../api/MockApi.js"
import { ok } from "../http/Envelope.js"
import { servedAs } from "../http/Served.js"
import {
  type CommonWireError,
  type DuplicateOrder,
  type RateLimited,
  type SignError,
  withHeaders
} from "../http/WireErrors.js"
import { CreateOrderFlow } from "./CreateOrderFlow.js"

/** The create-order handler, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const CreateOrderHandlers = HttpApiBuilder.group(MockApi, "api", (handlers) =>
  Effect.gen(function* () {
    const flow = yield* CreateOrderFlow
    // handleRaw: the signature covers the exact bytes sent, so the body is read by the flow, raw,
    // and never decoded (and re-encoded) by the framework first.
    return handlers.handleRaw("createOrder", ({ request }) =>
      servedAs<CommonWireError | SignError | DuplicateOrder | RateLimited>()(
        Effect.map(flow.create({ source: NodeHttpServerRequest.toIncomingMessage(request), withHeaders }), (result) =>
          ok(result)
        )
      )
    )
  })
)
