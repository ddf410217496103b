/**
 * An `HttpClient` on `node:http` / `node:https` for Node (also Bun and Deno, which provide those
 * modules): the client's default on Node through `@pc/client/promise`, and one layer for the
 * Effect client. Browsers and edge runtimes keep `FetchHttpClient`.
 *
 * Why not `FetchHttpClient` on Node: Node's `fetch` builds WHATWG `Request`, `Headers`,
 * `Response` and streams around every call; measured against the same server, a request through
 * it costs about twice the CPU of the same request on `node:http`, which capped any client on that
 * layer at about 0.7 of a hand-written `fetch` call. Why not `@effect/platform-node`'s
 * `NodeHttpClient`: its `node:http` layer makes an agent without keep-alive (a new connection per
 * request) and it brings `@effect/cluster`, `@effect/rpc` and `@effect/sql` as peer dependencies.
 *
 * @since 0.1.0
 */
/// <reference types="node" />
import * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import type * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Http from "node:http"
import * as Https from "node:https"

/**
 * The agents requests go through: keep-alive agents, so that connections are reused.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@pc/client/node"
 * import { Agent } from "node:http"
 * import { Agent as HttpsAgent } from "node:https"
 *
 * const agents: NodeHttpClient.Agents = {
 *   http: new Agent({ keepAlive: true, maxSockets: 64 }),
 *   https: new HttpsAgent({ keepAlive: true, maxSockets: 64 })
 * }
 * ```
 */
export interface Agents {
  readonly http: Http.Agent
  readonly https: Https.Agent
}

const transportError = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
  new HttpClientError.RequestError({ request, reason: "Transport", cause })

/** Writes the body; a stream is written chunk by chunk, honouring back-pressure. */
const writeBody = (
  nodeRequest: Http.ClientRequest,
  request: HttpClientRequest.HttpClientRequest,
  body: HttpBody.HttpBody
): Effect.Effect<void, HttpClientError.RequestError> => {
  switch (body._tag) {
    case "Empty":
      nodeRequest.end()
      return Effect.void
    case "Uint8Array":
    case "Raw":
      nodeRequest.end(body.body)
      return Effect.void
    case "FormData": {
      // The runtime's own encoder gives the multipart body and its boundary.
      const encoded = new Response(body.formData)
      nodeRequest.setHeader("content-type", encoded.headers.get("content-type") ?? "multipart/form-data")
      return Effect.tryPromise({
        try: () => encoded.arrayBuffer(),
        catch: (cause) => new HttpClientError.RequestError({ request, reason: "Encode", cause })
      }).pipe(
        Effect.flatMap((bytes) =>
          Effect.sync(() => {
            nodeRequest.end(new Uint8Array(bytes))
          })
        )
      )
    }
    case "Stream":
      return Stream.runForEach(
        Stream.mapError(body.stream, (cause) => new HttpClientError.RequestError({ request, reason: "Encode", cause })),
        (chunk) =>
          nodeRequest.write(chunk)
            ? Effect.void
            : Effect.async<void>((resume) => {
                nodeRequest.once("drain", () => resume(Effect.void))
              })
      ).pipe(
        Effect.zipRight(
          Effect.sync(() => {
            nodeRequest.end()
          })
        )
      )
  }
}

const send = (agents: Agents) => (request: HttpClientRequest.HttpClientRequest, url: URL, signal: AbortSignal) =>
  Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
    const https = url.protocol === "https:"
    const options = { method: request.method, headers: request.headers, signal }
    const nodeRequest = https
      ? Https.request(url, { ...options, agent: agents.https })
      : Http.request(url, { ...options, agent: agents.http })
    let done = false
    // Stays attached for the request's life: an error after the answer (the connection reset while
    // the body is read) reaches the body reader; an unheard 'error' event would end the process.
    nodeRequest.on("error", (cause) => {
      if (done) return
      done = true
      resume(Effect.fail(transportError(request, cause)))
    })
    nodeRequest.once("response", (source) => {
      if (done) {
        source.resume()
        return
      }
      done = true
      resume(Effect.succeed(new NodeResponse(request, source)))
    })
    if (request.body._tag === "Empty" || request.body._tag === "Uint8Array" || request.body._tag === "Raw") {
      void writeBody(nodeRequest, request, request.body)
    } else {
      Effect.runFork(
        writeBody(nodeRequest, request, request.body).pipe(
          Effect.catchAll((error) =>
            Effect.sync(() => {
              nodeRequest.destroy()
              if (done) return
              done = true
              resume(Effect.fail(error))
            })
          )
        )
      )
    }
    return Effect.sync(() => {
      done = true
      nodeRequest.destroy()
    })
  })

/** A response from `node:http`; the body is read once, whole, and kept for every accessor. */
class NodeResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  #headers: Headers.Headers | undefined
  #body: Promise<Buffer> | undefined
  // Taken now: once the body is read, the socket goes back to the agent's pool.
  readonly remoteAddress: Option.Option<string>

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly source: Http.IncomingMessage
  ) {
    super()
    this.remoteAddress = Option.fromNullable(source.socket?.remoteAddress)
    source.on("error", () => {})
  }

  get status(): number {
    return this.source.statusCode ?? 0
  }

  get headers(): Headers.Headers {
    this.#headers ??= Headers.fromInput(this.source.headers as Headers.Input)
    return this.#headers
  }

  get cookies(): Cookies.Cookies {
    const header = this.source.headers["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header)
  }

  #decodeError(cause: unknown) {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })
  }

  #read(): Promise<Buffer> {
    this.#body ??= new Promise<Buffer>((resolve, reject) => {
      const source = this.source
      const chunks: Array<Buffer> = []
      source.on("data", (chunk: Buffer) => chunks.push(chunk))
      source.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
      source.once("error", reject)
      source.once("close", () => {
        if (!source.complete) reject(new Error("the connection closed before the whole body arrived"))
      })
    })
    return this.#body
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.map(this.#bytes, (bytes) => {
      const copy = new Uint8Array(bytes.byteLength)
      copy.set(bytes)
      return copy.buffer
    })
  }

  get #bytes(): Effect.Effect<Buffer, HttpClientError.ResponseError> {
    return Effect.async<Buffer, HttpClientError.ResponseError>((resume) => {
      this.#read().then(
        (bytes) => resume(Effect.succeed(bytes)),
        (cause) => resume(Effect.fail(this.#decodeError(cause)))
      )
    })
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.#bytes, (bytes) => bytes.toString("utf8"))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => (text === "" ? null : (JSON.parse(text) as unknown)),
        catch: (cause) => this.#decodeError(cause)
      })
    )
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text)))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.flatMap(this.#bytes, (bytes) =>
      Effect.tryPromise({
        try: () =>
          new Response(new Uint8Array(bytes), {
            headers: { "content-type": this.source.headers["content-type"] ?? "" }
          }).formData(),
        catch: (cause) => this.#decodeError(cause)
      })
    )
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.fromAsyncIterable(this.source as AsyncIterable<Uint8Array>, (cause) => this.#decodeError(cause))
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }
}

/**
 * An `HttpClient` sending through the given agents.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@pc/client/node"
 * import { Agent } from "node:http"
 * import { Agent as HttpsAgent } from "node:https"
 *
 * const client = NodeHttpClient.make({ http: new Agent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) })
 * ```
 */
export const make = (agents: Agents): HttpClient.HttpClient => HttpClient.make(send(agents))

/**
 * The `HttpClient` on `node:http` / `node:https` through Node's global agents (keep-alive since
 * Node 19), for `PaymentClient.layer` and every other Effect program on Node.
 *
 * @example
 * ```ts
 * import { PaymentClient } from "@pc/client"
 * import { NodeHttpClient } from "@pc/client/node"
 * import { Layer } from "effect"
 *
 * const live = PaymentClient.layer(options).pipe(Layer.provide(NodeHttpClient.layer))
 * ```
 */
export const layer: Layer.Layer<HttpClient.HttpClient> = Layer.sync(HttpClient.HttpClient, () =>
  make({ http: Http.globalAgent, https: Https.globalAgent })
)
