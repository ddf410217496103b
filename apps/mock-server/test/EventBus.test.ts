// The event bus (MockEvents.ts) with a forward, as SharedEvents.ts gives it on PostgreSQL: what the
// forward takes it gets at once, stamped, with or without subscribers; what it does not take is
// built only for subscribers.
import { Chunk, Effect, Fiber, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { type MockEvent, makeEventBus } from "../src/events/MockEvents.js"

const requestEvent = {
  type: "request",
  requestId: "r1",
  method: "POST",
  path: "/x",
  status: 200,
  durationMs: 1
} as const
const created = { type: "order.created", orderSn: "PC1", appKey: "k" } as const

describe("makeEventBus with a forward", () => {
  it("sends on at once, stamped, only the types the forward sends, while nobody subscribes", async () => {
    const sent: Array<MockEvent> = []
    const asked: Array<string> = []
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { service } = yield* makeEventBus({
            sends: (type) => {
              asked.push(type)
              return type !== "request"
            },
            send: (event) => sent.push(event)
          })
          service.publishNow(requestEvent)
          service.publishNow(created)
          // Synchronously: no fiber stands between the publish and the forward.
          expect(sent.map((event) => event.type)).toEqual(["order.created"])
          yield* service.publish({ type: "platformKey.rotated", version: 2 })
        })
      )
    )
    expect(asked).toEqual(["request", "order.created", "platformKey.rotated"])
    expect(sent.map((event) => event.type)).toEqual(["order.created", "platformKey.rotated"])
    for (const event of sent) expect(Number.isNaN(Date.parse(event.at))).toBe(false)
    expect(sent[0]).toMatchObject(created)
  })

  it("delivers every event to a subscriber, in order, and still sends on only the forward's types", async () => {
    const sent: Array<MockEvent> = []
    const received = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { service } = yield* makeEventBus({ sends: (type) => type !== "request", send: (e) => sent.push(e) })
          const stream = yield* service.subscribe
          const reading = yield* Effect.fork(Stream.runCollect(Stream.take(stream, 3)))
          service.publishNow(requestEvent)
          service.publishNow(created)
          yield* service.publish({ type: "order.moved", orderSn: "PC1", status: "PAID" })
          return Chunk.toReadonlyArray(yield* Fiber.join(reading))
        })
      )
    )
    expect(received.map((event) => event.type)).toEqual(["request", "order.created", "order.moved"])
    expect(sent.map((event) => event.type)).toEqual(["order.created", "order.moved"])
    // The same stamped event goes both ways.
    expect(sent[0]).toBe(received[1])
  })
})
