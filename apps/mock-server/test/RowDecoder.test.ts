// The rows' plain decoding loop (src/store/RowDecoder.ts) against the schema it is read off: for
// rows the store writes and rows it never would (a wrong type, a missing column, a value outside a
// literal union, not an object at all), the same value or the same ParseError.
import * as Wire from "@pc/core/Wire"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { column, Delivery, DeliveryAttempt, OrderRecord } from "../src/store/Records.js"
import { rowDecoderSync, rowsDecoder } from "../src/store/RowDecoder.js"

/** A delivery row as the claim returns it: every column of `deliveries`, and the merchant's notify URL. */
const ClaimedRow = Schema.Struct({ ...Delivery.fields, notifyUrl: column("notify_url", Schema.NullOr(Schema.String)) })

/** A column's good values, and values that are wrong for it. */
const text = fc.string({ maxLength: 12 })
const whole = fc.integer({ min: 0, max: 2 ** 40 })
const nullable = <A>(value: fc.Arbitrary<A>) => fc.oneof(value, fc.constant(null))
const good: Record<string, fc.Arbitrary<unknown>> = {
  id: text,
  order_sn: text,
  app_key: text,
  event_id: text,
  event_type: fc.constantFrom(...Wire.CallbackEventType.literals),
  body: text,
  status: fc.constantFrom("pending", "delivered", "failed"),
  attempt_count: whole,
  next_attempt_at_ms: nullable(whole),
  last_error: nullable(text),
  created_at: text,
  created_at_ms: whole,
  delivered_at: nullable(text),
  notify_url: nullable(text)
}
const wrong = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  text,
  fc.boolean(),
  fc.constant("order.refunded"),
  fc.constant({}),
  fc.constant([])
)

/** A row whose columns are good, or now and then wrong, missing or extra. */
const row = fc
  .record(
    Object.fromEntries(
      Object.entries(good).map(([name, value]) => [
        name,
        fc.oneof(
          { arbitrary: value.map((v) => ({ v })), weight: 12 },
          { arbitrary: wrong.map((v) => ({ v })), weight: 1 },
          { arbitrary: fc.constant(undefined), weight: 1 }
        )
      ])
    )
  )
  .chain((columns) =>
    fc.record({ extra: fc.boolean() }).map(({ extra }) => {
      const out: Record<string, unknown> = extra ? { rowid: 7 } : {}
      for (const [name, cell] of Object.entries(columns)) if (cell !== undefined) out[name] = cell.v
      return out
    })
  )

const decodedBySchema = <A, I>(schema: Schema.Schema<A, I>, rows: unknown) =>
  Either.mapLeft(Schema.decodeUnknownEither(Schema.Array(schema))(rows), ParseResult.TreeFormatter.formatErrorSync)

const decodedByLoop = <A, I>(schema: Schema.Schema<A, I, never>, rows: unknown) => {
  const exit = Effect.runSyncExit(rowsDecoder(schema)(rows))
  return Exit.isSuccess(exit)
    ? Either.right(exit.value)
    : Either.left(
        exit.cause._tag === "Fail" ? ParseResult.TreeFormatter.formatErrorSync(exit.cause.error) : String(exit.cause)
      )
}

describe("rowsDecoder", () => {
  it("reads the store's row schemas with the loop, and leaves a parsed JSON column to the schema", () => {
    expect(rowsDecoder(ClaimedRow).fast).toBe(true)
    expect(rowsDecoder(Delivery).fast).toBe(true)
    expect(rowsDecoder(OrderRecord).fast).toBe(true)
    expect(rowsDecoder(Schema.typeSchema(OrderRecord)).fast).toBe(true)
    // request_headers is JSON text parsed into a record: not a plain value.
    expect(rowsDecoder(DeliveryAttempt).fast).toBe(false)
  })

  it("gives what the schema gives, value or ParseError, for rows good and bad", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 6 }), (rows) => {
        const bySchema = decodedBySchema(ClaimedRow, rows)
        expect(decodedByLoop(ClaimedRow, rows)).toStrictEqual(bySchema)
      }),
      { numRuns: 2_000 }
    )
  })

  it("decodes a row into the schema's keys only, renamed, in the schema's order", () => {
    const stored = {
      order_sn: "PC1",
      outer_order: "o-1",
      amount: "10.00",
      currency: "USD",
      status: "CREATED",
      created_at: "2026-11-29T00:00:00.000Z",
      updated_at: "2026-11-29T00:00:00.000Z",
      app_key: "k",
      expires_at_ms: 1,
      rowid: 3
    }
    const [order] = Effect.runSync(rowsDecoder(OrderRecord)([stored]))
    expect(Object.keys(order!)).toEqual(Object.keys(OrderRecord.fields))
    expect(order).toEqual({
      orderSn: "PC1",
      outerOrder: "o-1",
      amount: "10.00",
      currency: "USD",
      status: "CREATED",
      createdAt: "2026-11-29T00:00:00.000Z",
      updatedAt: "2026-11-29T00:00:00.000Z",
      appKey: "k",
      expiresAtMs: 1
    })
  })

  it("fails as the schema does for what is not a list of rows", () => {
    for (const rows of [null, undefined, "rows", 3, { 0: {} }, [null], [[]], ["row"]]) {
      const bySchema = decodedBySchema(ClaimedRow, rows)
      expect(Either.isLeft(bySchema)).toBe(true)
      expect(decodedByLoop(ClaimedRow, rows)).toStrictEqual(bySchema)
    }
  })
})

describe("rowDecoderSync", () => {
  const StoredOrder = Schema.typeSchema(OrderRecord)
  const decode = rowDecoderSync(StoredOrder)
  const order = {
    orderSn: "PC1",
    outerOrder: "o-1",
    amount: "10.00",
    currency: "USD",
    status: "PAID",
    createdAt: "a",
    updatedAt: "b",
    appKey: "k",
    expiresAtMs: 5
  }

  it("gives the schema's value for a stored row", () => {
    expect(decode({ ...order, extra: 1 })).toStrictEqual(Schema.decodeUnknownSync(StoredOrder)(order))
  })

  it("throws the schema's ParseError for a row the store did not write", () => {
    for (const bad of [
      { ...order, status: "SHIPPED" },
      { ...order, expiresAtMs: "5" },
      { ...order, appKey: undefined }
    ]) {
      const bySchema = (() => {
        try {
          Schema.decodeUnknownSync(StoredOrder)(bad)
          return "decoded"
        } catch (error) {
          return String(error)
        }
      })()
      expect(bySchema).not.toBe("decoded")
      expect(() => decode(bad)).toThrow(bySchema.replace(/^ParseError: /, ""))
    }
  })
})
