import { Either, ParseResult, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  AnyEnvelope,
  CallbackEvent,
  CREATE_ORDER_PATH,
  CreateOrderRequest,
  CreateOrderResult,
  Envelope,
  Order,
  OrderId,
  ResultCode
} from "../src/Wire.js"

const decodeRequest = Schema.decodeUnknownEither(CreateOrderRequest)

/** The issues of a refused decode as `path joined by "." -> message`. */
const issuesOf = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown) => {
  const result = Schema.decodeUnknownEither(schema)(input)
  if (Either.isRight(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.right)}`)
  return ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => ({
    path: issue.path.join("."),
    message: issue.message
  }))
}

/** The distinct paths of a refused decode (a union of literals reports one issue per member). */
const paths = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): Array<string> => [
  ...new Set(issuesOf(schema, input).map((issue) => issue.path))
]

const SPEC_EXAMPLE = { orderId: "M-1001", amount: "10.00", currency: "USD" }

const request = (patch: Record<string, unknown>): Record<string, unknown> => ({ ...SPEC_EXAMPLE, ...patch })

describe("CREATE_ORDER_PATH", () => {
  it("is the spec's create-order path (4.2)", () => {
    expect(CREATE_ORDER_PATH).toBe("/openapi/v2/order/create")
  })
})

describe("CreateOrderRequest: accepted", () => {
  it("accepts the spec example", () => {
    expect(Schema.decodeUnknownSync(CreateOrderRequest)(SPEC_EXAMPLE)).toEqual(SPEC_EXAMPLE)
  })

  it("accepts the amount as a JSON number (10.5) and keeps it as given", () => {
    const decoded = Schema.decodeUnknownSync(CreateOrderRequest)(request({ amount: 10.5 }))
    expect(decoded.amount).toBe(10.5)
  })

  it("accepts the spec example after a JSON round trip", () => {
    const body = '{"orderId":"M-1001","amount":"10.00","currency":"USD"}'
    expect(Either.isRight(decodeRequest(JSON.parse(body)))).toBe(true)
  })

  it("drops unknown extra fields from the decoded value instead of refusing them", () => {
    const input = request({ extra: 1, note: "gift", nested: { a: 1 } })
    const result = decodeRequest(input)
    if (Either.isLeft(result)) throw new Error("expected extra fields to be tolerated")
    expect(result.right).toEqual(SPEC_EXAMPLE)
    expect(Object.keys(result.right).sort()).toEqual(["amount", "currency", "orderId"])
    // The input itself is not touched.
    expect(input).toHaveProperty("extra", 1)
  })

  it.each([
    ["one character", "a"],
    ["64 ASCII characters", "a".repeat(64)],
    ["64 CJK code points", "订".repeat(64)],
    ["64 astral code points (128 UTF-16 units)", "😀".repeat(64)],
    ["spaces and punctuation", "order #1 / 2024-01-01"],
    ["Unicode letters", "Bestellung-Größe-ü"]
  ])("accepts an orderId of %s", (_, orderId) => {
    expect(Either.isRight(decodeRequest(request({ orderId })))).toBe(true)
  })

  it.each([
    ["USD", "10.00"],
    ["USD", "10"],
    ["USD", "0.01"],
    ["JPY", "100"],
    ["JPY", 100],
    ["KWD", "1.500"],
    ["KWD", "1.5"],
    ["EUR", 0.5],
    ["USD", "999999999999.99"]
  ])("accepts %s %j", (currency, amount) => {
    expect(Either.isRight(decodeRequest({ orderId: "M-1", amount, currency }))).toBe(true)
  })
})

describe("CreateOrderRequest: refused", () => {
  it("refuses an empty orderId at orderId", () => {
    expect(paths(CreateOrderRequest, request({ orderId: "" }))).toEqual(["orderId"])
  })

  it("refuses 65 code points at orderId, ASCII or CJK", () => {
    expect(paths(CreateOrderRequest, request({ orderId: "a".repeat(65) }))).toEqual(["orderId"])
    expect(paths(CreateOrderRequest, request({ orderId: "订".repeat(65) }))).toEqual(["orderId"])
    expect(paths(CreateOrderRequest, request({ orderId: "😀".repeat(65) }))).toEqual(["orderId"])
  })

  it("property: an orderId of n code points without control characters is accepted exactly when 1 <= n <= 64", () => {
    const char = fc.constantFrom("a", "Z", "9", "-", "订", "ü", "😀", "𠀀", " ")
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 80 }).chain((n) => fc.array(char, { minLength: n, maxLength: n })),
        (chars) => {
          const accepted = Either.isRight(decodeRequest(request({ orderId: chars.join("") })))
          expect(accepted).toBe(chars.length >= 1 && chars.length <= 64)
        }
      ),
      { numRuns: 300 }
    )
  })

  it.each([
    ["a line feed", "M-1\n"],
    ["a carriage return", "M\r1"],
    ["a tab", "M\t1"],
    ["NUL", "M\u00001"],
    ["DEL", "M\u007f1"],
    ["a C1 control (U+0085)", "M\u00851"],
    ["U+009F", "\u009f"]
  ])("refuses an orderId with %s at orderId", (_, orderId) => {
    const issues = issuesOf(CreateOrderRequest, request({ orderId }))
    expect(issues.map((i) => i.path)).toEqual(["orderId"])
    expect(issues[0]!.message).toContain("control")
  })

  it.each([
    ["a number", 1001],
    ["null", null],
    ["an array", ["M-1"]]
  ])("refuses an orderId that is %s", (_, orderId) => {
    expect(paths(CreateOrderRequest, request({ orderId }))).toEqual(["orderId"])
  })

  it.each(["usd", "Usd", "US", "USDD", "XXX1", "", "HRK"])("refuses the currency %j at currency", (currency) => {
    expect(paths(CreateOrderRequest, request({ currency }))).toEqual(["currency"])
  })

  it.each([
    ["JPY", "1.5"],
    ["USD", "10.001"],
    ["USD", 10.001],
    ["USD", "0"],
    ["USD", "0.00"],
    ["USD", "-1.00"],
    ["USD", -1],
    ["USD", "1e3"],
    ["USD", " 10.00"],
    ["USD", "010.00"],
    ["USD", ".5"],
    ["USD", "1000000000000.00"],
    ["KWD", "1.0001"]
  ])("refuses %s %j with the error at amount", (currency, amount) => {
    const issues = issuesOf(CreateOrderRequest, { orderId: "M-1", amount, currency })
    expect(issues.map((i) => i.path)).toEqual(["amount"])
  })

  it("names the currency's rule in the amount error", () => {
    const [jpy] = issuesOf(CreateOrderRequest, request({ amount: "1.5", currency: "JPY" }))
    expect(jpy!.path).toBe("amount")
    expect(jpy!.message).toContain("JPY")
    const [usd] = issuesOf(CreateOrderRequest, request({ amount: "10.001", currency: "USD" }))
    expect(usd!.path).toBe("amount")
    expect(usd!.message).toContain("USD")
  })

  it("refuses an amount that is neither a string nor a number at amount", () => {
    for (const amount of [true, null, { value: "10.00" }, ["10.00"]]) {
      const found = paths(CreateOrderRequest, request({ amount }))
      expect(found.length).toBeGreaterThan(0)
      expect(found.every((p) => p === "amount")).toBe(true)
    }
  })

  it.each(["orderId", "amount", "currency"])("refuses a request without %s at that field", (field) => {
    const input: Record<string, unknown> = { ...SPEC_EXAMPLE }
    delete input[field]
    expect(paths(CreateOrderRequest, input)).toEqual([field])
  })

  it.each([null, "M-1001", 42, [SPEC_EXAMPLE]])("refuses the body %j at the root", (body) => {
    expect(paths(CreateOrderRequest, body)).toEqual([""])
  })
})

describe("Envelope(CreateOrderResult)", () => {
  const decode = Schema.decodeUnknownEither(Envelope(CreateOrderResult))
  const data = { orderSn: "PC20251121000001", outerOrder: "M-1001", h5Url: "http://127.0.0.1:4010/h5/checkout/PC1" }

  it("decodes a success envelope", () => {
    const result = decode({ code: "SUCCESS", msg: null, data })
    if (Either.isLeft(result)) throw new Error(String(result.left))
    expect(result.right).toEqual({ code: "SUCCESS", msg: null, data })
  })

  it("decodes an error envelope with data null", () => {
    const result = decode({ code: "signError", msg: "signature verification failed: bad signature", data: null })
    if (Either.isLeft(result)) throw new Error(String(result.left))
    expect(result.right.data).toBeNull()
    expect(result.right.code).toBe("signError")
    expect(result.right.msg).toBe("signature verification failed: bad signature")
  })

  it("decodes an envelope whose code it does not know (clients decide on known codes themselves)", () => {
    expect(Either.isRight(decode({ code: "someFutureCode", msg: "x", data: null }))).toBe(true)
  })

  it("refuses an envelope without data, or with a msg that is neither string nor null", () => {
    expect(paths(Envelope(CreateOrderResult), { code: "SUCCESS", msg: null })).toEqual(["data"])
    expect(paths(Envelope(CreateOrderResult), { code: "SUCCESS", msg: 1, data })).toEqual(["msg"])
    expect(paths(Envelope(CreateOrderResult), { msg: null, data })).toEqual(["code"])
  })

  it("refuses data without a field of the result, pointing at that field", () => {
    const found = paths(Envelope(CreateOrderResult), {
      code: "SUCCESS",
      msg: null,
      data: { ...data, h5Url: undefined }
    })
    // NullOr also reports that data is not null, at "data".
    expect(found).toContain("data.h5Url")
    expect(found.every((p) => p === "data" || p === "data.h5Url")).toBe(true)
  })

  it("AnyEnvelope reads code and msg of any answer and keeps data as it is", () => {
    const decoded = Schema.decodeUnknownSync(AnyEnvelope)({ code: "notFound", msg: "no such route", data: { x: [1] } })
    expect(decoded).toEqual({ code: "notFound", msg: "no such route", data: { x: [1] } })
  })
})

describe("ResultCode", () => {
  it("accepts the contract's codes and refuses others", () => {
    const decode = Schema.decodeUnknownEither(ResultCode)
    for (const code of ["SUCCESS", "signError", "paramError", "duplicateOrder", "rateLimited", "internalError"]) {
      expect(Either.isRight(decode(code))).toBe(true)
    }
    for (const code of ["success", "SIGNERROR", "", "error"]) expect(Either.isLeft(decode(code))).toBe(true)
  })
})

describe("CallbackEvent", () => {
  const event = {
    eventId: "evt_01",
    eventType: "order.paid",
    orderSn: "PC20251121000001",
    outerOrder: "M-1001",
    amount: "10.00",
    currency: "USD",
    status: "PAID",
    createdAt: "2025-11-21T08:00:00.000Z",
    updatedAt: "2025-11-21T08:01:00.000Z"
  }

  it("decodes a well-formed event", () => {
    expect(Schema.decodeUnknownSync(CallbackEvent)(event)).toEqual(event)
  })

  it("lists its fields in the contract's order, the order a callback body is sent in", () => {
    // The one copy of the contract's list: the mock's tests and the audit's endpoints read the order
    // from the schema, so the schema is held to the contract here.
    expect(Object.keys(CallbackEvent.fields)).toEqual([
      "eventId",
      "eventType",
      "orderSn",
      "outerOrder",
      "amount",
      "currency",
      "status",
      "createdAt",
      "updatedAt"
    ])
  })

  it.each([
    ["order.paid", "PAID"],
    ["order.failed", "FAILED"],
    ["order.expired", "EXPIRED"]
  ])("decodes the event type %s", (eventType, status) => {
    expect(Either.isRight(Schema.decodeUnknownEither(CallbackEvent)({ ...event, eventType, status }))).toBe(true)
  })

  it.each(["order.created", "order.refunded", "ORDER.PAID", "paid", ""])(
    "refuses the event type %j at eventType",
    (eventType) => {
      expect(paths(CallbackEvent, { ...event, eventType })).toEqual(["eventType"])
    }
  )

  it("refuses the status CREATED (a callback is only sent for an end state)", () => {
    expect(paths(CallbackEvent, { ...event, status: "CREATED" })).toEqual(["status"])
  })

  it("refuses an event without orderSn", () => {
    const { orderSn: _, ...rest } = event
    expect(paths(CallbackEvent, rest)).toEqual(["orderSn"])
  })
})

describe("Order", () => {
  it("decodes an order in each state and refuses an unknown state", () => {
    const order = {
      orderSn: "PC1",
      outerOrder: "M-1",
      amount: "10.00",
      currency: "USD",
      status: "CREATED",
      createdAt: "2025-11-21T08:00:00.000Z",
      updatedAt: "2025-11-21T08:00:00.000Z"
    }
    for (const status of ["CREATED", "PAID", "FAILED", "EXPIRED"]) {
      expect(Either.isRight(Schema.decodeUnknownEither(Order)({ ...order, status }))).toBe(true)
    }
    expect(paths(Order, { ...order, status: "REFUNDED" })).toEqual(["status"])
  })
})

describe("OrderId and lone surrogates", () => {
  it("refuses a lone surrogate (no UTF-8 form) but accepts paired ones", () => {
    expect(Either.isLeft(Schema.decodeUnknownEither(OrderId)("M-\uD800"))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(OrderId)("\uDC00x"))).toBe(true)
    expect(Either.isRight(Schema.decodeUnknownEither(OrderId)("M-😀"))).toBe(true)
  })
})
