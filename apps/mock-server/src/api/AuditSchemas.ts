/**
 * The callback endpoint audit's request and report (CONTRACT.md "Callback endpoint audit"), as
 * Schemas that decode the route's body and document it in `/openapi.json`.
 */
import * as Schema from "effect/Schema"
import { NotifyUrl } from "./Schemas.js"

/** `POST /dev/merchants/{appKey}/audit`: where to send the battery and for which order, both optional. */
export const AuditRequest = Schema.Struct({
  url: Schema.optional(
    NotifyUrl.annotations({ description: "The endpoint to audit; default: the merchant's notify URL" })
  ),
  orderSn: Schema.optional(
    Schema.String.annotations({
      description:
        "An order the merchant's own app created, for handlers that refuse unknown orders; default: the audit creates and pays one (no delivery is recorded)"
    })
  )
}).annotations({ identifier: "AuditRequest", examples: [{ url: "http://127.0.0.1:3000/callbacks" }] })

/** One check of the report. */
export const AuditCheck = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  expect: Schema.Literal("accept", "reject"),
  verdict: Schema.Literal("pass", "fail", "warn"),
  status: Schema.NullOr(Schema.Int),
  ms: Schema.Number,
  detail: Schema.String
}).annotations({ identifier: "AuditCheck" })

/** The report: `passed` is true when no check is `fail`. */
export const AuditReport = Schema.Struct({
  url: Schema.String,
  environment: Schema.String,
  appKey: Schema.String,
  orderSn: Schema.String,
  passed: Schema.Boolean,
  checks: Schema.Array(AuditCheck)
}).annotations({
  identifier: "AuditReport",
  examples: [
    {
      url: "http://127.0.0.1:3000/callbacks",
      environment: "sandbox",
      appKey: "7e57c0de-0000-4000-8000-000000000001",
      orderSn: "PC20261127120000000482915730264",
      passed: false,
      checks: [
        {
          id: "future-timestamp",
          title: "A valid signature, X-R-Ts 6 minutes in the future",
          expect: "reject",
          verdict: "fail",
          status: 200,
          ms: 4,
          detail:
            "answered HTTP 200: a callback stamped 6 minutes ahead was accepted: the window checks only the past; refuse |now - X-R-Ts| over 5 minutes."
        }
      ]
    }
  ]
})
