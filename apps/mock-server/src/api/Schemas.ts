/**
 * The shapes of the mock's requests and answers: the /dev payloads (decoded by these same schemas,
 * so the docs cannot drift from the checks), the data each envelope carries, and the typed path
 * parameters. Each carries an example for the OpenAPI document.
 */
import * as Wire from "@pc/core/Wire"
import * as Schema from "effect/Schema"

const EXAMPLE_APP_KEY = "6f1c9a52-3b7e-4c1d-9a8e-2f4b5c6d7e80"
const EXAMPLE_ORDER_SN = "PC20260101093000000482915730264"
const EXAMPLE_PEM =
  "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA...\n-----END PUBLIC KEY-----\n"

/** The success envelope `{code: "SUCCESS", msg: null, data}`. */
export const Success = <A, I, R>(data: Schema.Schema<A, I, R>) =>
  Schema.Struct({ code: Schema.Literal("SUCCESS"), msg: Schema.Null, data })

/** The success envelope of `data`. */
export const success = <A>(data: A) => ({ code: "SUCCESS", msg: null, data }) as const

/** An RSA public key, PEM (SPKI or PKCS#1), 2048 bits or more (checked on upload). */
export const PublicKeyPem = Schema.String.annotations({
  description:
    "RSA public key as PEM text: SPKI (`BEGIN PUBLIC KEY`) or PKCS#1 (`BEGIN RSA PUBLIC KEY`), 2048 bits or more",
  message: () => "a PEM public key is required",
  examples: [EXAMPLE_PEM]
})

/**
 * Where callbacks go: an absolute http(s) URL without credentials (fetch refuses a URL with
 * credentials, so every attempt would fail, and each failure would copy the password into the logs).
 */
export const NotifyUrl = Schema.String.annotations({ message: () => "an absolute http(s) URL is required" }).pipe(
  Schema.filter((value) => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      return `${JSON.stringify(value)} is not an absolute URL`
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return "only http and https URLs can receive callbacks"
    if (url.username !== "" || url.password !== "") return "must not contain a user name or password"
    return true
  }),
  Schema.annotations({
    description: "absolute http or https URL without credentials, not the mock itself",
    examples: ["http://127.0.0.1:3000/payment-callbacks"]
  })
)

export const MerchantCreate = Schema.Struct({
  publicKeyPem: PublicKeyPem,
  notifyUrl: Schema.optional(NotifyUrl)
}).annotations({
  identifier: "MerchantCreate",
  examples: [{ publicKeyPem: EXAMPLE_PEM, notifyUrl: "http://127.0.0.1:3000/cb" }]
})

export const KeyUpload = Schema.Struct({ publicKeyPem: PublicKeyPem }).annotations({
  identifier: "KeyUpload",
  examples: [{ publicKeyPem: EXAMPLE_PEM }]
})

/** A platform key rotation: with `publishOnly`, the new key is only published until activated. */
export const PlatformKeyRotation = Schema.Struct({ publishOnly: Schema.optional(Schema.Boolean) }).annotations({
  identifier: "PlatformKeyRotation",
  examples: [{ publishOnly: true }]
})

/** A platform key version in a path. */
export const PlatformKeyVersionPath = Schema.Struct({
  version: Schema.NumberFromString.pipe(Schema.int(), Schema.positive())
})

export const NotifyUrlUpdate = Schema.Struct({ notifyUrl: NotifyUrl }).annotations({
  identifier: "NotifyUrlUpdate",
  examples: [{ notifyUrl: "http://127.0.0.1:3000/cb" }]
})

/** A merchant's appKey in a path. */
export const AppKeyParam = Schema.String.annotations({
  description: "the merchant's appKey",
  examples: [EXAMPLE_APP_KEY]
})

const keyVersionText = /^[1-9][0-9]{0,8}$/
/** A key version in a path: the ordinal of an upload, 1, 2, 3, ... (plain digits only). */
export const KeyVersionParam = Schema.String.pipe(
  Schema.filter((text) => keyVersionText.test(text) || `${JSON.stringify(text)} is not a key version (1, 2, 3, ...)`),
  Schema.compose(Schema.NumberFromString),
  Schema.annotations({ description: "the key version (ordinal of the upload): 1, 2, 3, ...", examples: [1] })
)

export const OrderSnParam = Schema.String.annotations({
  description: "the order's orderSn",
  examples: [EXAMPLE_ORDER_SN]
})

export const MerchantCreated = Schema.Struct({ appKey: Schema.String, keyVersion: Schema.Int }).annotations({
  identifier: "MerchantCreated",
  examples: [{ appKey: EXAMPLE_APP_KEY, keyVersion: 1 }]
})

export const MerchantKey = Schema.Struct({
  version: Schema.Int,
  status: Schema.Literal("active", "disabled"),
  uploadedAt: Schema.String
}).annotations({ identifier: "MerchantKey" })

export const Merchant = Schema.Struct({
  appKey: Schema.String,
  notifyUrl: Schema.NullOr(Schema.String),
  keys: Schema.Array(MerchantKey)
}).annotations({
  identifier: "Merchant",
  examples: [
    {
      appKey: EXAMPLE_APP_KEY,
      notifyUrl: "http://127.0.0.1:3000/cb",
      keys: [{ version: 1, status: "active", uploadedAt: "2026-01-01T00:00:00.000Z" }]
    }
  ]
})

export const KeyAdded = Schema.Struct({ keyVersion: Schema.Int }).annotations({
  identifier: "KeyAdded",
  examples: [{ keyVersion: 2 }]
})

export const KeyDisabled = Schema.Struct({ version: Schema.Int, status: Schema.Literal("disabled") }).annotations({
  identifier: "KeyDisabled",
  examples: [{ version: 1, status: "disabled" }]
})

export const KeyEnabled = Schema.Struct({ version: Schema.Int, status: Schema.Literal("active") }).annotations({
  identifier: "KeyEnabled",
  examples: [{ version: 1, status: "active" }]
})

export const NotifyUrlSet = Schema.Struct({ appKey: Schema.String, notifyUrl: Schema.String }).annotations({
  identifier: "NotifyUrlSet",
  examples: [{ appKey: EXAMPLE_APP_KEY, notifyUrl: "http://127.0.0.1:3000/cb" }]
})

export const PlatformKey = Schema.Struct({
  environment: Schema.String,
  version: Schema.Int,
  publicKeyPem: Schema.String,
  status: Schema.Literal("current", "published", "retired")
}).annotations({
  identifier: "PlatformKey",
  examples: [{ environment: "sandbox", version: 1, publicKeyPem: EXAMPLE_PEM, status: "current" }]
})

const EXAMPLE_ORDER = {
  orderSn: EXAMPLE_ORDER_SN,
  outerOrder: "M-1001",
  amount: "10.00",
  currency: "USD",
  status: "PAID",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:05.000Z"
} as const

export const Order = Wire.Order.annotations({ identifier: "Order", examples: [EXAMPLE_ORDER] })

/** An order as the developer menu lists it: the order and the merchant it belongs to. */
export const OrderSummary = Schema.Struct({ ...Wire.Order.fields, appKey: Schema.String }).annotations({
  identifier: "OrderSummary",
  examples: [{ ...EXAMPLE_ORDER, appKey: EXAMPLE_APP_KEY }]
})

/** The most rows one list answer of the developer menu carries. */
export const LIST_LIMIT_MAX = 200

/** A list's `limit` query parameter: 1 to {@link LIST_LIMIT_MAX} rows, newest first. */
const Limit = (defaultLimit: number) => {
  const description = `how many rows at most, newest first: 1 to ${LIST_LIMIT_MAX} (default ${defaultLimit})`
  // Documented as what travels (digits in the query string), decoded to a bounded integer.
  return Schema.String.annotations({
    jsonSchema: { type: "string", pattern: "^[1-9][0-9]*$", description, examples: ["20"] }
  }).pipe(
    Schema.compose(Schema.NumberFromString),
    Schema.int(),
    Schema.between(1, LIST_LIMIT_MAX),
    Schema.annotations({ description })
  )
}

/** `GET /dev/orders` and `GET /dev/merchants`: newest first, at most `limit` (default 50). */
export const ListQuery = Schema.Struct({ limit: Schema.optional(Limit(50)) })

/** The headers the mock set on a callback request (Content-Type and the three X-R- headers). */
export const SentHeaders = Schema.Record({ key: Schema.String, value: Schema.String })

export const DeliveryAttempt = Schema.Struct({
  attempt: Schema.Int,
  at: Schema.String,
  url: Schema.NullOr(Schema.String),
  httpStatus: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  keyVersion: Schema.NullOr(Schema.Int),
  durationMs: Schema.Number.annotations({ description: "latency: from sending until the answer (or the error)" }),
  requestHeaders: Schema.NullOr(SentHeaders).annotations({
    description: "the headers the mock set on this attempt's request; null when nothing was sent (no notify URL)"
  }),
  requestBody: Schema.NullOr(Schema.String).annotations({
    description: "the exact body sent; with the appKey and X-R-Ts it is what X-R-Signature signs"
  })
}).annotations({ identifier: "DeliveryAttempt" })

export const Delivery = Schema.Struct({
  id: Schema.String,
  orderSn: Schema.String,
  appKey: Schema.String.annotations({
    description: "the merchant the callback is for (the first part of the signed string)"
  }),
  eventId: Schema.String,
  eventType: Wire.CallbackEventType,
  status: Schema.Literal("pending", "delivered", "failed"),
  attemptCount: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.String),
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  deliveredAt: Schema.NullOr(Schema.String),
  body: Schema.String,
  attempts: Schema.Array(DeliveryAttempt)
}).annotations({
  identifier: "Delivery",
  examples: [
    {
      id: "dlv_1",
      orderSn: EXAMPLE_ORDER_SN,
      appKey: EXAMPLE_APP_KEY,
      eventId: "evt_1",
      eventType: "order.paid",
      status: "delivered",
      attemptCount: 1,
      nextAttemptAt: null,
      lastError: null,
      createdAt: "2026-01-01T00:00:05.000Z",
      deliveredAt: "2026-01-01T00:00:05.020Z",
      body: '{"eventId":"evt_1","eventType":"order.paid"}',
      attempts: [
        {
          attempt: 1,
          at: "2026-01-01T00:00:05.000Z",
          url: "http://127.0.0.1:3000/cb",
          httpStatus: 200,
          error: null,
          keyVersion: 1,
          durationMs: 20,
          requestHeaders: {
            "content-type": "application/json",
            "X-R-Ts": "1767225605000",
            "X-R-Signature": "kZ3v...base64...==",
            "X-R-Key-Version": "1"
          },
          requestBody: '{"eventId":"evt_1","eventType":"order.paid"}'
        }
      ]
    }
  ]
})

export const CallbacksQuery = Schema.Struct({
  orderSn: Schema.optional(Schema.String.annotations({ description: "only the deliveries of this order" })),
  limit: Schema.optional(Limit(LIST_LIMIT_MAX))
})

export const Health = Schema.Struct({ status: Schema.Literal("ok"), environment: Schema.String }).annotations({
  identifier: "Health",
  examples: [{ status: "ok", environment: "sandbox" }]
})

/** The create-order body as documented: the contract's rules, where JSON Schema can say them. */
export const CreateOrderBody = Schema.Struct({
  orderId: Wire.OrderId.annotations({
    jsonSchema: {
      type: "string",
      minLength: 1,
      maxLength: 64,
      description: "the merchant's order id: 1 to 64 characters, no control characters"
    }
  }),
  amount: Wire.AmountInput.annotations({
    description:
      'positive, as a string ("10.00") or a number (10.5), with at most the currency\'s ISO 4217 decimals ' +
      "(USD 2, JPY 0, KWD 3) and 12 integer digits; no exponent"
  }),
  currency: Wire.Currency.annotations({
    jsonSchema: { type: "string", pattern: "^[A-Z]{3}$", description: "an active ISO 4217 code, upper case" }
  })
}).annotations({
  // No identifier: the body is documented inline at its one operation.
  description: "Unknown fields are ignored (they are still part of the signed body).",
  examples: [{ orderId: "M-1001", amount: "10.00", currency: "USD" }]
})

export const CreateOrderResult = Wire.CreateOrderResult.annotations({
  examples: [
    { orderSn: EXAMPLE_ORDER_SN, outerOrder: "M-1001", h5Url: `http://127.0.0.1:4010/h5/checkout/${EXAMPLE_ORDER_SN}` }
  ]
})
