/** What a create-order request comes to, shared by the flow (CreateOrderFlow.ts) and its faults (FaultedCreate.ts). */
import type * as Wire from "@pc/core/Wire"
import type { SignatureNote } from "../../events/MockEvents.js"
import type { ApiError } from "../ApiError.js"

/** How a create-order request ends: the answer, and what the response and its event carry beside it. */
export interface CreateOrderOutcome {
  /** The order's result, or the refusal to answer with (its envelope and status). */
  readonly answer: Wire.CreateOrderResult | ApiError
  /** Headers for the response, whatever the answer (the sandbox's `X-R-Signature-Check`). */
  readonly headers: Readonly<Record<string, string>> | undefined
  /** What the signature check decided, for the request's `request` event; none when it did not run. */
  readonly note: SignatureNote | undefined
  /** Close the connection without an answer (a `timeout` fault, FaultedCreate.ts). */
  readonly hangUp?: boolean
}
