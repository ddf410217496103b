// How many callbacks a merchant may have in flight, by how fast its endpoint answers
// (EndpointSpeeds.ts), on a clock the test sets: earned by a whole batch of quick 2xx answers, lost
// by a failure, a slow answer, an attempt held too long, a new notify URL or a minute's silence.
import { describe, expect, it } from "vitest"
import {
  type AnsweredAttempt,
  FAST_FOR_MS,
  fastAnswerMs,
  MAX_IN_FLIGHT_PER_MERCHANT,
  makeEndpointSpeeds,
  START_IN_FLIGHT_PER_MERCHANT
} from "../src/callbacks/EndpointSpeeds.js"

const FAST_MS = 100
const A = "merchant-a"
const B = "merchant-b"
const URL_1 = "https://merchant.example/callbacks"
const URL_2 = "https://merchant.example/v2/callbacks"

let ids = 0
/** Sends `count` attempts of `appKey` to `url` at `atMs`; each answer is then built by `answer`. */
const sendBatch = (
  speeds: ReturnType<typeof makeEndpointSpeeds>,
  appKey: string,
  count: number,
  atMs: number,
  url = URL_1
) => {
  const sent = Array.from({ length: count }, () => `dlv_${++ids}`)
  for (const id of sent) speeds.sent(id, appKey, url, atMs)
  return (
    answer: Partial<Omit<AnsweredAttempt, "deliveryId" | "appKey" | "url">> = {}
  ): ReadonlyArray<AnsweredAttempt> =>
    sent.map((deliveryId) => ({ deliveryId, appKey, url, delivered: true, durationMs: 5, ...answer }))
}

const made = () => makeEndpointSpeeds({ fastMs: FAST_MS, maxFast: 2 })

/** A merchant made fast by one quick batch at `atMs`. */
const fastMerchant = (appKey: string, atMs = 0) => {
  const speeds = made()
  speeds.learn(sendBatch(speeds, appKey, START_IN_FLIGHT_PER_MERCHANT, atMs)(), atMs + 5)
  return speeds
}

describe("fastAnswerMs", () => {
  it("is 100 ms, or less when the whole raised limit answered one at a time would not fit in half an attempt's time", () => {
    expect(fastAnswerMs(60_000)).toBe(100)
    expect(fastAnswerMs(2 * 100 * MAX_IN_FLIGHT_PER_MERCHANT)).toBe(100)
    expect(fastAnswerMs(10_000)).toBe(10_000 / (2 * MAX_IN_FLIGHT_PER_MERCHANT))
    expect(fastAnswerMs(3_200) * MAX_IN_FLIGHT_PER_MERCHANT).toBe(3_200 / 2)
  })
})

describe("a merchant's limit", () => {
  it("starts at the start limit, is raised by a whole batch of quick 2xx answers, and batches half of it", () => {
    const speeds = made()
    expect(speeds.limitOf(A, 0)).toBe(START_IN_FLIGHT_PER_MERCHANT)
    expect(speeds.batchOf(A, 0)).toBe(START_IN_FLIGHT_PER_MERCHANT)
    expect(speeds.limits(0).size).toBe(0)
    speeds.learn(sendBatch(speeds, A, START_IN_FLIGHT_PER_MERCHANT, 0)(), 5)
    expect(speeds.limitOf(A, 5)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
    expect(speeds.batchOf(A, 5)).toBe(MAX_IN_FLIGHT_PER_MERCHANT / 2)
    expect([...speeds.limits(5)]).toEqual([[A, MAX_IN_FLIGHT_PER_MERCHANT]])
    // Another merchant is not raised by A's answers.
    expect(speeds.limitOf(B, 5)).toBe(START_IN_FLIGHT_PER_MERCHANT)
  })

  it("is not raised by fewer quick answers than the start limit, nor by quick answers mixed with one slow or failed", () => {
    const few = made()
    few.learn(sendBatch(few, A, START_IN_FLIGHT_PER_MERCHANT - 1, 0)(), 5)
    expect(few.limitOf(A, 5)).toBe(START_IN_FLIGHT_PER_MERCHANT)

    const oneSlow = made()
    const answers = sendBatch(oneSlow, A, START_IN_FLIGHT_PER_MERCHANT + 1, 0)()
    oneSlow.learn([...answers.slice(1), { ...answers[0]!, durationMs: FAST_MS + 1 }], FAST_MS + 1)
    expect(oneSlow.limitOf(A, FAST_MS + 1)).toBe(START_IN_FLIGHT_PER_MERCHANT)

    const oneFailed = made()
    const failing = sendBatch(oneFailed, A, START_IN_FLIGHT_PER_MERCHANT + 1, 0)()
    oneFailed.learn([...failing.slice(1), { ...failing[0]!, delivered: false }], 5)
    expect(oneFailed.limitOf(A, 5)).toBe(START_IN_FLIGHT_PER_MERCHANT)
  })

  it("drops back at the first slow or failed answer, and stays raised through small quick batches", () => {
    const speeds = fastMerchant(A)
    speeds.learn(sendBatch(speeds, A, 1, 10)(), 15)
    expect(speeds.limitOf(A, 15)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
    speeds.learn(sendBatch(speeds, A, 1, 20)({ delivered: false }), 25)
    expect(speeds.limitOf(A, 25)).toBe(START_IN_FLIGHT_PER_MERCHANT)

    const slowed = fastMerchant(A)
    slowed.learn(sendBatch(slowed, A, 2, 10)({ durationMs: FAST_MS + 1 }), 10 + FAST_MS + 1)
    expect(slowed.limitOf(A, 200)).toBe(START_IN_FLIGHT_PER_MERCHANT)
  })

  it("drops back once an attempt is held on the wire longer than a fast answer, however quick the others are", () => {
    const speeds = fastMerchant(A)
    // 16 go out; one of them hangs, the other 15 are answered at once.
    const batch = sendBatch(speeds, A, MAX_IN_FLIGHT_PER_MERCHANT / 2, 10)()
    speeds.learn(batch.slice(1), 15)
    expect(speeds.limitOf(A, 15)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
    expect(speeds.limits(10 + FAST_MS).get(A)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
    // The next claim after it has been held longer than a fast answer finds the merchant slow.
    expect(speeds.limits(10 + FAST_MS + 1).has(A)).toBe(false)
    expect(speeds.limitOf(A, 10 + FAST_MS + 1)).toBe(START_IN_FLIGHT_PER_MERCHANT)
  })

  it("is not raised again by quick answers to attempts sent before it was found slow", () => {
    const speeds = fastMerchant(A)
    // Two batches on the wire: the first one's answers are slow; the second's, sent before that
    // verdict, come back quick, and say nothing of the endpoint now.
    const first = sendBatch(speeds, A, 4, 10)
    const second = sendBatch(speeds, A, 4, 11)
    speeds.learn(first({ durationMs: FAST_MS + 1 }), 10 + FAST_MS + 1)
    speeds.learn(second({ durationMs: FAST_MS }), 11 + FAST_MS)
    expect(speeds.limitOf(A, 11 + FAST_MS)).toBe(START_IN_FLIGHT_PER_MERCHANT)
    // A batch sent after the verdict counts again.
    speeds.learn(sendBatch(speeds, A, START_IN_FLIGHT_PER_MERCHANT, 200)(), 205)
    expect(speeds.limitOf(A, 205)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
  })

  it("drops back once an attempt is held too long, found when a batch is learned, not only at a claim", () => {
    const speeds = fastMerchant(A)
    sendBatch(speeds, A, 1, 10)
    speeds.learn(sendBatch(speeds, A, START_IN_FLIGHT_PER_MERCHANT, 10 + FAST_MS)(), 10 + FAST_MS + 1)
    expect(speeds.limitOf(A, 10 + FAST_MS + 1)).toBe(START_IN_FLIGHT_PER_MERCHANT)
  })

  it("drops back when the merchant's notify URL changes, and after a minute without a fast batch", () => {
    const forgotten = fastMerchant(A)
    // What was on the wire when it was forgotten does not raise it again, however quick.
    const onTheWire = sendBatch(forgotten, A, START_IN_FLIGHT_PER_MERCHANT, 10)
    forgotten.forget(A)
    expect(forgotten.limitOf(A, 10)).toBe(START_IN_FLIGHT_PER_MERCHANT)
    forgotten.learn(onTheWire(), 15)
    expect(forgotten.limitOf(A, 15)).toBe(START_IN_FLIGHT_PER_MERCHANT)

    // Sending to another URL than the fast one starts over, even in a process that was not told.
    const moved = fastMerchant(A)
    const toNew = sendBatch(moved, A, 2, 10, URL_2)
    expect(moved.limitOf(A, 10)).toBe(START_IN_FLIGHT_PER_MERCHANT)
    moved.learn(toNew(), 15)
    expect(moved.limitOf(A, 15)).toBe(START_IN_FLIGHT_PER_MERCHANT)
    moved.learn(sendBatch(moved, A, START_IN_FLIGHT_PER_MERCHANT, 20, URL_2)(), 25)
    expect(moved.limitOf(A, 25)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)

    const quiet = fastMerchant(A, 0)
    expect(quiet.limitOf(A, 5 + FAST_FOR_MS)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
    expect(quiet.limitOf(A, 5 + FAST_FOR_MS + 1)).toBe(START_IN_FLIGHT_PER_MERCHANT)
    expect(quiet.limits(5 + FAST_FOR_MS + 1).size).toBe(0)
    // One small quick batch after that is not a whole batch: it does not raise it again.
    quiet.learn(sendBatch(quiet, A, 1, FAST_FOR_MS + 10)(), FAST_FOR_MS + 15)
    expect(quiet.limitOf(A, FAST_FOR_MS + 15)).toBe(START_IN_FLIGHT_PER_MERCHANT)

    // While it is fast, a small quick batch keeps it fast for another minute.
    const busy = fastMerchant(A, 0)
    busy.learn(sendBatch(busy, A, 1, FAST_FOR_MS - 10)(), FAST_FOR_MS - 5)
    expect(busy.limitOf(A, FAST_FOR_MS + 100)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
  })

  it("remembers at most maxFast merchants as fast, the least recently answered forgotten first", () => {
    const speeds = made()
    for (const [n, appKey] of [A, B, "merchant-c"].entries()) {
      speeds.learn(sendBatch(speeds, appKey, START_IN_FLIGHT_PER_MERCHANT, n * 10)(), n * 10 + 5)
    }
    expect([...speeds.limits(30).keys()]).toEqual([B, "merchant-c"])
    expect(speeds.limitOf(A, 30)).toBe(START_IN_FLIGHT_PER_MERCHANT)
  })

  it("keeps nothing of attempts cut off without an outcome", () => {
    const speeds = fastMerchant(A)
    const batch = sendBatch(speeds, A, 2, 10)()
    for (const { deliveryId } of batch) speeds.dropped(deliveryId)
    // Dropped attempts are not on the wire: they never make the merchant hung.
    expect(speeds.limits(10 + 10 * FAST_MS).get(A)).toBe(MAX_IN_FLIGHT_PER_MERCHANT)
  })
})
