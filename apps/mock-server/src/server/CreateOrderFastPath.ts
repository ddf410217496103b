/**
 * The one hot route, `POST /openapi/v2/order/create`, served straight from Node's `request` event
 * instead of through the HttpApi router, its middleware and its response encoding, and without a
 * fiber where none is needed: the flow's steps (domain/Step.ts) are plain on SQLite with the
 * merchant's keys cached, so a signed create is the body's read, the verification (at once for a
 * request alone, a Promise from the thread pool while others wait), the insert and one write: a
 * fiber per request and a fiber step per check would cost more than that work itself. On
 * PostgreSQL the key read and the insert are Promises of statements shared by the requests that
 * arrived together: no fiber per request there either.
 * The route stays declared once in MockApi (OpenAPI, the typed client); the work (CreateOrderFlow),
 * the failure answers (`answerFailure`), the envelope and the request's log line and event
 * (log/RequestLog.ts) are the modules the HttpApi path runs too, so both paths answer the same
 * bytes. Only an exact origin-form target is taken here; anything else (a query, an absolute-form
 * target) goes the HttpApi way.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { ErrorCode } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { MockEventInput } from "../events/MockEvents.js"
import { loggerOf, recordRequest } from "../log/RequestLog.js"
import { type CreateOrderOutcome, CreateOrderFlow, CreateStorageFailed } from "../domain/orders/CreateOrderFlow.js"
import { answerFailure } from "./App.js"
import { readBody } from "./Body.js"
import { checkDevAccess, type DevAccessPolicy } from "../domain/auth/DevAccessPolicy.js"
import { envelopeJson } from "../api/Envelope.js"
import { ApiError } from "../domain/ApiError.js"
import * as Step from "../domain/Step.js"

/** Serves a request when it is create-order's and says so; `false` leaves it to the HttpApi app. */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean

const CONTENT_TYPE = "content-type"
const REQUEST_ID = "x-request-id"
const CONTENT_LENGTH = "content-length"
/** The headers of an answer with none of its own (production's common case). */
const JSON_ONLY: Readonly<Record<string, string>> = { [CONTENT_TYPE]: "application/json" }

/**
 * The create-order fast path over the CreateOrderFlow in context; the context's runtime gives its
 * loggers and runs what must wait on a fiber. Never fails: every failure is answered as on the
 * HttpApi path.
 *
 * @example
 * ```ts
 * const fastPath = yield* makeCreateOrderFastPath({ devAccess, bodyLimitBytes, publishNow: events.publishNow })
 * const server = withFastPath(createServer(), fastPath)
 * ```
 */
export const makeCreateOrderFastPath = (options: {
  readonly devAccess?: DevAccessPolicy
  readonly bodyLimitBytes: number
  /** Where the `request` event of each request goes (`/dev/events`). */
  readonly publishNow: (event: MockEventInput) => void
}): Effect.Effect<FastPath, never, CreateOrderFlow> =>
  Effect.gen(function* () {
    const flow = yield* CreateOrderFlow
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const log = loggerOf(runtime.fiberRefs)
    const path = Wire.CREATE_ORDER_PATH

    /**
     * Writes the answer (status, headers and body in one `end`), then records the request (log
     * line, event): the client has its answer before the recording's work.
     */
    const finish = (
      response: ServerResponse,
      requestId: string,
      started: number,
      answer: {
        readonly status: number
        readonly headers: Readonly<Record<string, string>>
        readonly body: string | Uint8Array
      },
      note: CreateOrderOutcome["note"]
    ) => {
      const durationMs = Date.now() - started
      if (!response.writableEnded && !response.destroyed) {
        // A string body goes out in one write with the head (Node joins them); bytes would be a second chunk.
        const { body, headers } = answer
        // Node takes the head as a flat list of names and values: no object copied to add two. The
        // two are this function's own, whatever an answer built elsewhere (answerFailure) carries.
        const head: Array<string> = []
        for (const name in headers) if (name !== CONTENT_LENGTH && name !== REQUEST_ID) head.push(name, headers[name]!)
        head.push(
          CONTENT_LENGTH,
          String(typeof body === "string" ? Buffer.byteLength(body) : body.length),
          REQUEST_ID,
          requestId
        )
        response.writeHead(answer.status, head)
        response.end(body)
      }
      recordRequest(log, options.publishNow, {
        requestId,
        method: "POST",
        path,
        status: answer.status,
        durationMs,
        signature: note
      })
    }

    const outcomeAnswer = (outcome: CreateOrderOutcome) => {
      const { answer } = outcome
      const refused = answer instanceof ApiError
      const code: ErrorCode.ResultCode = refused ? answer.code : "SUCCESS"
      const extra = refused ? answer.headers : undefined
      return {
        status: ErrorCode.httpStatus(code),
        headers:
          outcome.headers === undefined && extra === undefined
            ? JSON_ONLY
            : { ...outcome.headers, ...extra, [CONTENT_TYPE]: "application/json" },
        body: refused ? envelopeJson(code, answer.msg, null) : envelopeJson(code, null, answer)
      }
    }

    /**
     * A storage failure or a defect: answered (internalError, logged) on a fiber, as on the HttpApi
     * path; after the signature check, with its header and note (CreateStorageFailed).
     */
    const failed = (response: ServerResponse, requestId: string, started: number, cause: Cause.Cause<unknown>) => {
      const failure = Cause.failureOption(cause)
      const checked = Option.isSome(failure) && failure.value instanceof CreateStorageFailed ? failure.value : undefined
      runFork(
        answerFailure(
          "POST",
          path,
          requestId
        )(checked === undefined ? cause : Cause.fail(checked.cause)).pipe(
          Effect.map((answer: HttpServerResponse.HttpServerResponse) =>
            finish(
              response,
              requestId,
              started,
              {
                status: answer.status,
                headers: { ...checked?.headers, ...answer.headers, [CONTENT_TYPE]: "application/json" },
                body: answer.body._tag === "Uint8Array" ? answer.body.body : ""
              },
              checked?.note
            )
          ),
          Effect.annotateLogs("requestId", requestId)
        )
      )
    }

    const serve = (
      request: IncomingMessage,
      response: ServerResponse,
      requestId: string,
      started: number,
      busy: boolean
    ) => {
      // Never refuses today (the route is not under /dev/), decided here as for every request anyway.
      const denied =
        options.devAccess === undefined
          ? undefined
          : checkDevAccess(options.devAccess, path, request.headers.authorization)
      if (denied !== undefined) {
        return finish(
          response,
          requestId,
          started,
          outcomeAnswer({ answer: denied, headers: undefined, note: undefined }),
          undefined
        )
      }
      readBody(request, options.bodyLimitBytes, (read) => {
        // Plain steps run here, in Node's callbacks, not on a fiber: what one throws is answered
        // as a fiber's defect is (internalError, logged), never a crash of the process.
        let step: Step.Step<CreateOrderOutcome, unknown>
        try {
          step =
            read instanceof ApiError
              ? { answer: read, headers: undefined, note: undefined }
              : flow.create({ headers: request.headers, bytes: read, busy, requestId })
        } catch (defect) {
          return failed(response, requestId, started, Cause.die(defect))
        }
        Step.run(
          step,
          // Only a step that must wait on the runtime gets a fiber; its log lines carry the request id.
          (effect) => runFork(Effect.annotateLogs(effect, "requestId", requestId)),
          (exit) => {
            if (Exit.isFailure(exit)) return failed(response, requestId, started, exit.cause)
            // A timeout fault (domain/orders/FaultedCreate.ts): closed without an answer, still recorded.
            if (exit.value.hangUp === true) response.destroy()
            let answer: ReturnType<typeof outcomeAnswer>
            try {
              answer = outcomeAnswer(exit.value)
            } catch (defect) {
              return failed(response, requestId, started, Cause.die(defect))
            }
            finish(response, requestId, started, answer, exit.value.note)
          }
        )
      })
    }

    // Requests taken in this turn of the event loop. The first of a turn is verified on the loop
    // (the quickest answer for a request alone); later ones are verified on the thread pool while
    // the loop goes on with the rest of the turn, so one slow verification does not hold up the
    // others; a request alone skips the hand-over, which would only add to its wait.
    let taken = 0
    const newTurn = () => {
      taken = 0
    }

    return (request, response) => {
      if (request.method !== "POST" || request.url !== path) return false
      if (taken++ === 0) setImmediate(newTurn)
      serve(request, response, randomUUID(), Date.now(), taken > 1)
      return true
    }
  })

/**
 * Puts `fastPath` in front of the server's `request` listeners (the HttpApi app, ListenGate's
 * parking): a request it takes reaches none of them. Returns the same server.
 *
 * @example
 * ```ts
 * const server = withEnvelopeForClientErrors(withFastPath(createServer(), fastPath))
 * ```
 */
export const withFastPath = (server: Server, fastPath: FastPath): Server => {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event === "request" && fastPath(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
    return emit(event, ...args)
  }) as Server["emit"]
  return server
}
