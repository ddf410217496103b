/**
 * `/dev/events` across replicas on one PostgreSQL database: each replica sends the events that
 * describe the shared data (orders created and moved, delivery attempts, platform key rotations)
 * over PostgreSQL's LISTEN/NOTIFY, and shows the other replicas' events beside its own, each once.
 * `request` events stay with the replica that answered the request (see the README).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import Pg from "pg"
import { randomUUID } from "node:crypto"
import { type MockEvent, MockEvents, makeEventBus } from "./MockEvents.js"

/** The NOTIFY channel of the mock's events (channels are per database: one mock deployment each). */
export const EVENTS_CHANNEL = "pc_mock_events"

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more: events are sent in batches kept
 * under this many bytes (one event is a few hundred at most: ids, a status, a time).
 */
const PAYLOAD_LIMIT_BYTES = 7_900

/** How long the sender waits after a NOTIFY before taking the events gathered since (see below). */
const NOTIFY_PAUSE = "10 millis"

/** The events other replicas need: those about the shared database, not one replica's HTTP traffic. */
const isShared = (type: MockEvent["type"]): boolean => type !== "request"

/** What one NOTIFY carries: the sending replica and its events, or a probe that the listener works. */
interface Payload {
  readonly origin: string
  readonly events?: ReadonlyArray<MockEvent>
  readonly probe?: true
}

const SHARED_TYPES: ReadonlySet<string> = new Set([
  "order.created",
  "order.moved",
  "delivery.attempted",
  "platformKey.rotated"
])

/** Reads a payload; anything else on the channel (another program's NOTIFY) is ignored. */
const parsePayload = (text: string): Payload | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null || !("origin" in value) || typeof value.origin !== "string") {
      return undefined
    }
    const events =
      "events" in value && Array.isArray(value.events)
        ? value.events.filter(
            (event: unknown): event is MockEvent =>
              typeof event === "object" &&
              event !== null &&
              "type" in event &&
              typeof event.type === "string" &&
              SHARED_TYPES.has(event.type) &&
              "at" in event &&
              typeof event.at === "string"
          )
        : []
    return { origin: value.origin, events, ...("probe" in value && value.probe === true ? { probe: true } : {}) }
  } catch {
    return undefined
  }
}

/** Splits events into NOTIFY payloads under {@link PAYLOAD_LIMIT_BYTES}, in order. */
export const payloadsOf = (origin: string, events: Iterable<MockEvent>): Array<string> => {
  const payloads: Array<string> = []
  const head = `{"origin":${JSON.stringify(origin)},"events":[`
  let batch: Array<string> = []
  let bytes = head.length + 2
  for (const event of events) {
    const text = JSON.stringify(event)
    const size = Buffer.byteLength(text) + 1
    // An event that alone would not fit is not shared (none of the mock's comes close).
    if (head.length + 2 + size > PAYLOAD_LIMIT_BYTES) continue
    if (bytes + size > PAYLOAD_LIMIT_BYTES) {
      payloads.push(`${head}${batch.join(",")}]}`)
      batch = []
      bytes = head.length + 2
    }
    batch.push(text)
    bytes += size
  }
  if (batch.length > 0) payloads.push(`${head}${batch.join(",")}]}`)
  return payloads
}

/** Connection options of a dedicated client, from the pool's configuration. */
const clientConfig = (config: PgClient.PgClientConfig): Pg.ClientConfig =>
  config.url === undefined
    ? {
        host: config.host,
        port: config.port,
        database: config.database,
        user: config.username,
        password: config.password === undefined ? undefined : Redacted.value(config.password)
      }
    : { connectionString: Redacted.value(config.url) }

/**
 * LISTENs on `channel` on a connection of its own and hands each notification to `onNotification`
 * (`onListening` runs once the LISTEN holds); succeeds when that connection is lost (an error or its end), fails when it cannot connect or
 * listen. Interrupted, it closes the connection.
 */
const listenUntilLost = (
  config: PgClient.PgClientConfig,
  channel: string,
  onNotification: (payload: string) => Effect.Effect<void>,
  onListening: Effect.Effect<void>
): Effect.Effect<void, unknown> =>
  Effect.scoped(
    Effect.gen(function* () {
      const lost = yield* Deferred.make<void>()
      const runtime = yield* Effect.runtime<never>()
      const client = yield* Effect.acquireRelease(
        Effect.tryPromise(async () => {
          const client = new Pg.Client(clientConfig(config))
          // An error before `connect` settles rejects it; one after it means the connection is lost.
          client.on("error", () => Deferred.unsafeDone(lost, Exit.void))
          client.on("end", () => Deferred.unsafeDone(lost, Exit.void))
          try {
            await client.connect()
          } catch (error) {
            await client.end().catch(() => undefined)
            throw error
          }
          return client
        }),
        (client) => Effect.promise(() => client.end().catch(() => undefined))
      )
      client.on("notification", (message) => {
        if (message.channel === channel && message.payload !== undefined) {
          Runtime.runFork(runtime)(onNotification(message.payload))
        }
      })
      yield* Effect.tryPromise(() => client.query(`LISTEN ${Pg.escapeIdentifier(channel)}`))
      yield* onListening
      yield* Deferred.await(lost)
    })
  )

/**
 * The event bus of a replica on a shared PostgreSQL database. Its own events reach its
 * subscribers at once, as on SQLite, and are sent to the others in batches (one NOTIFY per batch:
 * under load, one per a few dozen events); the others' events arrive through LISTEN, and a
 * replica ignores the echo of its own. Ready once the replica has heard its own probe, so events
 * sent after start-up are not missed.
 *
 * @example
 * ```ts
 * const layer = sharedMockEvents.pipe(Layer.provide(PgClient.layer({ url })))
 * ```
 */
export const sharedMockEvents: Layer.Layer<MockEvents, never, PgClient.PgClient> = Layer.scoped(
  MockEvents,
  Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    // Not `pg.notify`: it sends `NOTIFY channel, $1`, which PostgreSQL refuses (a utility statement
    // takes no parameters); `pg_notify` is the same notification as a function call.
    const notify = (payload: string) => Effect.asVoid(pg`SELECT pg_notify(${EVENTS_CHANNEL}, ${payload})`)
    const origin = randomUUID()
    // Sliding: if PostgreSQL is slow or away, the oldest unsent events are dropped, never the mock's memory.
    const outbox = yield* Effect.acquireRelease(Queue.sliding<MockEvent>(4_096), Queue.shutdown)
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const bus = yield* makeEventBus({
      sends: isShared,
      // At once when there is room; a full outbox drops its oldest event for this one (sliding),
      // which only the queue's own offer does.
      send: (event) => {
        if (!outbox.unsafeOffer(event)) runFork(Queue.offer(outbox, event))
      }
    })
    const heard = yield* Deferred.make<void>()

    const onNotification = (text: string) => {
      const payload = parsePayload(text)
      if (payload === undefined) return Effect.void
      if (payload.origin === origin) return payload.probe === true ? Deferred.succeed(heard, undefined) : Effect.void
      return Effect.forEach(payload.events ?? [], bus.deliver, { discard: true })
    }
    // Not `pg.listen`: its one connection, once lost (a PostgreSQL restart), stays lost without a
    // word, and this replica would never hear the others again. Each connection here lives until
    // it is lost; then a new one listens again, as soon as PostgreSQL takes it. One line says the
    // connection is lost and one that it listens again, however many tries the outage takes.
    let lost = false
    const listening = Effect.suspend(() => {
      if (!lost) return Effect.void
      lost = false
      return Effect.logInfo("replica events: listening again; other replicas' events show again")
    })
    yield* listenUntilLost(pg.config, EVENTS_CHANNEL, onNotification, listening).pipe(
      Effect.matchEffect({
        // Refused while PostgreSQL is down or starting: tried again, quietly.
        onFailure: () => Effect.sleep("250 millis"),
        onSuccess: () =>
          Effect.suspend(() => {
            if (lost) return Effect.void
            lost = true
            return Effect.logWarning(
              "replica events: lost the LISTEN connection to PostgreSQL; other replicas' events show again once it is back"
            )
          })
      }),
      Effect.forever,
      Effect.forkScoped
    )

    // After each NOTIFY, a pause in which the next events gather: without it, under load, a NOTIFY
    // went out for every three or four creates, as many round trips as the creates' own
    // statements. The first event after a quiet spell still goes at once; the others' views of it
    // are at most the pause late.
    yield* Queue.takeBetween(outbox, 1, 512).pipe(
      Effect.flatMap((events) =>
        Effect.forEach(payloadsOf(origin, Chunk.toReadonlyArray(events)), notify, {
          discard: true
        })
      ),
      Effect.zipRight(Effect.sleep(NOTIFY_PAUSE)),
      Effect.catchAll((error) => Effect.logWarning("replica events: sending failed", error.message)),
      Effect.forever,
      Effect.forkScoped
    )

    // LISTEN runs in the forked fiber: probe until this replica hears itself, so the channel works
    // before the mock says it is ready.
    const probe = JSON.stringify({ origin, probe: true } satisfies Payload)
    yield* Deferred.await(heard).pipe(
      Effect.raceFirst(
        notify(probe).pipe(Effect.ignore, Effect.repeat(Schedule.spaced("100 millis")), Effect.zipRight(Effect.never))
      ),
      Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "no answer from LISTEN in 10 s" }),
      Effect.catchAll((reason) => Effect.logWarning(`replica events: other replicas' events may not show (${reason})`))
    )
    return bus.service
  })
)
