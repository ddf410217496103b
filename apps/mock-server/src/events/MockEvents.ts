/**
 * What happens in the mock, as events for `GET /dev/events` (Server-Sent Events), the dashboard
 * and `pc`: orders created and moved, delivery attempts, platform key rotations, and one `request`
 * event per request (with the signature check's verdict for create-order).
 */
import type * as CallbackAudit from "@pc/core/CallbackAudit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** One event; `type` says which. */
export type MockEvent =
  | { readonly type: "order.created"; readonly at: string; readonly orderSn: string; readonly appKey: string }
  | {
      readonly type: "order.moved"
      readonly at: string
      readonly orderSn: string
      readonly status: "PAID" | "FAILED" | "EXPIRED"
    }
  | {
      readonly type: "delivery.attempted"
      readonly at: string
      readonly deliveryId: string
      readonly orderSn: string
      readonly eventType: string
    }
  | { readonly type: "platformKey.rotated"; readonly at: string; readonly version: number }
  | {
      /** One check of a callback endpoint audit, as it is judged (callbacks/Audit.ts). */
      readonly type: "audit.check"
      readonly at: string
      readonly appKey: string
      readonly url: string
      readonly check: CallbackAudit.CheckResult
    }
  | {
      /** A fault the mock injected on purpose (CONTRACT.md "Faults and time"). */
      readonly type: "fault"
      readonly at: string
      readonly name: "serverError" | "lostResponse" | "timeout" | "delay" | "duplicate" | "outOfOrder"
      readonly route: "createOrder" | "callback"
      readonly orderId: string | null
      readonly requestId: string | null
      readonly delayMs: number
    }
  | {
      readonly type: "request"
      readonly at: string
      readonly requestId: string
      readonly method: string
      readonly path: string
      readonly status: number
      readonly durationMs: number
      /** Create-order only: what the signature check decided, and why when it refused. */
      readonly signature?: SignatureNote
    }

/** Events without the time, which {@link MockEvents} stamps. */
export type MockEventInput = MockEvent extends infer E ? (E extends MockEvent ? Omit<E, "at"> : never) : never

/** What the mock's event bus offers. */
export interface MockEventBus {
  /** Publishes an event to every current subscriber (none kept for later ones). */
  readonly publish: (event: MockEventInput) => Effect.Effect<void>
  /**
   * {@link MockEvents.publish} from outside a fiber: nothing at all while nobody listens; what is
   * sent to the other replicas goes at once, and only a delivery to subscribers runs on a fiber of
   * its own (in order with the other events published so).
   */
  readonly publishNow: (event: MockEventInput) => void
  /** The events from now on, while the scope lasts; a slow reader drops its oldest unread ones. */
  readonly subscribe: Effect.Effect<Stream.Stream<MockEvent>, never, Scope.Scope>
}

/**
 * Where a bus also sends the events it publishes (SharedEvents.ts: to the other replicas), at once
 * and without a fiber: a create on PostgreSQL publishes two events, and a fiber for each cost it
 * more than the event's own work.
 */
export interface EventForward {
  /** Whether events of this type are sent on at all. */
  readonly sends: (type: MockEvent["type"]) => boolean
  /** Takes a stamped event to send on; never waits. */
  readonly send: (event: MockEvent) => void
}

/**
 * An event bus whose published events also go to `forward` (stamped), and which can `deliver`
 * events stamped elsewhere (another replica's, see SharedEvents.ts) to its subscribers. An event
 * that neither a subscriber nor `forward` takes is never built: the mock publishes two events per
 * create, mostly with nobody on `/dev/events`.
 *
 * @example
 * ```ts
 * const bus = yield* makeEventBus({ sends: (type) => type !== "request", send: (event) => outbox.unsafeOffer(event) })
 * yield* bus.deliver(eventFromAnotherReplica)
 * ```
 */
export const makeEventBus = (
  forward?: EventForward
): Effect.Effect<
  { readonly service: MockEventBus; readonly deliver: (event: MockEvent) => Effect.Effect<void> },
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    // Sliding: a reader that stops reading never holds memory or the publisher back.
    const hub = yield* Effect.acquireRelease(PubSub.sliding<MockEvent>(1024), PubSub.shutdown)
    // Counted before the subscription exists and after it ends: an event built for nobody is harmless.
    let subscribers = 0
    const deliver = (event: MockEvent) => Effect.asVoid(PubSub.publish(hub, event))
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    /** The event stamped and sent on, when anyone takes it; undefined when nobody does. */
    const stamped = (input: MockEventInput): MockEvent | undefined => {
      const to = forward?.sends(input.type) === true ? forward : undefined
      if (subscribers === 0 && to === undefined) return undefined
      const event = { ...input, at: new Date().toISOString() } as MockEvent
      to?.send(event)
      return event
    }
    const service: MockEventBus = {
      publish: (input) =>
        Effect.suspend(() => {
          const event = stamped(input)
          return event === undefined || subscribers === 0 ? Effect.void : deliver(event)
        }),
      publishNow: (input) => {
        const event = stamped(input)
        if (event !== undefined && subscribers > 0) runFork(deliver(event))
      },
      subscribe: Effect.zipRight(
        Effect.acquireRelease(
          Effect.sync(() => subscribers++),
          () => Effect.sync(() => subscribers--)
        ),
        Effect.map(PubSub.subscribe(hub), (queue) => Stream.fromQueue(queue))
      )
    }
    return { service, deliver }
  })

/** The mock's event bus: publish from anywhere, subscribe per SSE connection. */
export class MockEvents extends Context.Tag("@pc/mock-server/MockEvents")<MockEvents, MockEventBus>() {
  /** The bus of one process (SQLite, or a single mock): its own events only. */
  static readonly layer = Layer.scoped(
    MockEvents,
    Effect.map(makeEventBus(), (bus) => bus.service)
  )
}

/**
 * The publish function of the MockEvents in context, or one that does nothing where there is none
 * (services built alone in tests). Taken once, when a service is made.
 *
 * @example
 * ```ts
 * const publish = yield* eventPublisher
 * yield* publish({ type: "order.created", orderSn, appKey })
 * ```
 */
export const eventPublisher: Effect.Effect<(event: MockEventInput) => Effect.Effect<void>> = Effect.map(
  Effect.serviceOption(MockEvents),
  (events) => (events._tag === "Some" ? events.value.publish : () => Effect.void)
)

/**
 * {@link MockEvents.publishNow} when the bus is in context, else a function that does nothing.
 *
 * @example
 * ```ts
 * const publishNow = yield* eventPublisherNow
 * publishNow({ type: "order.created", orderSn, appKey })
 * ```
 */
export const eventPublisherNow: Effect.Effect<(event: MockEventInput) => void> = Effect.map(
  Effect.serviceOption(MockEvents),
  (events) => (events._tag === "Some" ? events.value.publishNow : () => {})
)

/** What a create-order's signature check decided, for the request's `request` event. */
export interface SignatureNote {
  readonly verdict: "valid" | "invalid" | "missing" | "refused"
  readonly cause: string | null
  /** For a signature that does not match: what the mock worked out went wrong (e.g. the body re-serialised). */
  readonly likelyCause: string | null
}

/** Set by the create-order handler, read by the app when it publishes the `request` event. */
export const signatureNote: FiberRef.FiberRef<SignatureNote | undefined> = FiberRef.unsafeMake<
  SignatureNote | undefined
>(undefined)
