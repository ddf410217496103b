// Checks a create-order input before any network call and serialises it to the bytes that are signed.
import { Money } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { CreateOrderInput } from "../PaymentClient.js"
import { InvalidRequest } from "../PaymentClientError.js"
import { utf8 } from "./bytes.js"

const decodeOrderId = Schema.decodeUnknownEither(Wire.OrderId)

const localInvalid = (field: string, message: string) =>
  new InvalidRequest({
    message: `invalid ${field}: ${message} (refused before sending)`,
    source: "local",
    code: "paramError",
    field,
    serverMessage: undefined,
    status: undefined,
    requestId: undefined
  })

/** A checked create-order input: the bytes that are signed and sent, and the amount as sent. */
export interface EncodedCreateOrder {
  readonly body: Uint8Array
  /** The canonical amount string (`"10.50"`), as the service stores and compares it. */
  readonly amount: string
}

/**
 * Checks a create-order input and serialises it once, to the exact bytes that are signed and sent.
 * The amount becomes the canonical string for the currency (`10.5` USD is `"10.50"`).
 */
export const encodeCreateOrder = (input: CreateOrderInput): Either.Either<EncodedCreateOrder, InvalidRequest> => {
  const orderId = decodeOrderId(input?.orderId)
  if (Either.isLeft(orderId)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(orderId.left)[0]
    return Either.left(localInvalid("orderId", issue?.message ?? "expected a string of 1 to 64 characters"))
  }
  if (typeof input.currency !== "string")
    return Either.left(localInvalid("currency", 'expected a string such as "USD"'))
  const amount = Money.canonicalAmount(input.amount, input.currency)
  if (!amount.ok) {
    return Either.left(
      localInvalid(amount.error.reason === "UnknownCurrency" ? "currency" : "amount", amount.error.message)
    )
  }
  return Either.right({
    body: utf8(JSON.stringify({ orderId: orderId.right, amount: amount.amount, currency: input.currency })),
    amount: amount.amount
  })
}
