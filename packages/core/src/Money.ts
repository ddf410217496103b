/**
 * Money amounts: active ISO 4217 currencies, strict parsing of JSON amounts ("10.00" or 10.5) into
 * integer minor units, and the canonical wire string with exactly the currency's decimals. Pure.
 *
 * @since 0.1.0
 */
import { ISO_4217 } from "./internal/iso4217.js"

/**
 * An ISO 4217 alphabetic currency code such as `"USD"`; a plain string alias, checked by {@link isCurrencyCode}.
 *
 * @example
 * ```ts
 * import type { Money } from "@pc/core"
 *
 * const currency: Money.CurrencyCode = "EUR"
 * ```
 */
export type CurrencyCode = string

/**
 * An amount of money in integer minor units (`USD "10.00"` is `1000n`, `JPY "100"` is `100n`, `KWD "1.5"` is `1500n`).
 *
 * @example
 * ```ts
 * import type { Money } from "@pc/core"
 *
 * const price: Money.Money = { currency: "USD", minor: 1000n } // USD 10.00
 * ```
 */
export interface Money {
  readonly currency: CurrencyCode
  readonly minor: bigint
}

/**
 * Why an amount was refused; each rule has its own reason.
 *
 * @example
 * ```ts
 * import type { Money } from "@pc/core"
 *
 * const reason: Money.AmountErrorReason = "TooManyDecimals"
 * ```
 */
export type AmountErrorReason =
  /** The currency is not an active ISO 4217 code with minor units (upper case, exactly 3 letters). */
  | "UnknownCurrency"
  /** The amount is neither a string nor a number (only reachable from untyped callers). */
  | "WrongType"
  /** The number is NaN or +-Infinity. */
  | "NotFinite"
  /** The amount is written with an exponent (`"1e3"`, or a number such as 1e21 or 1e-7). */
  | "ExponentNotation"
  /** The string is not a plain decimal: sign `+`, whitespace, leading zeros, a bare dot, letters... */
  | "NotADecimal"
  /** The amount is zero or negative. */
  | "NotPositive"
  /** More than 12 digits before the decimal point. */
  | "TooManyIntegerDigits"
  /** More decimals (as written) than the currency's ISO 4217 minor unit. */
  | "TooManyDecimals"

/**
 * A refused amount: the rule that failed and a human-readable message naming it.
 *
 * @example
 * ```ts
 * import type { Money } from "@pc/core"
 *
 * const error: Money.AmountError = {
 *   _tag: "AmountError",
 *   reason: "TooManyDecimals",
 *   message: "amount 10.001 has 3 decimals but USD allows at most 2"
 * }
 * ```
 */
export interface AmountError {
  readonly _tag: "AmountError"
  readonly reason: AmountErrorReason
  readonly message: string
}

/**
 * The outcome of {@link parseAmount}: the parsed money, or the rule it broke.
 *
 * @example
 * ```ts
 * import { Money } from "@pc/core"
 *
 * const result: Money.ParseAmountResult = Money.parseAmount("10.00", "USD")
 * if (result.ok) result.money.minor // 1000n
 * ```
 */
export type ParseAmountResult =
  | { readonly ok: true; readonly money: Money }
  | { readonly ok: false; readonly error: AmountError }

/**
 * The outcome of {@link canonicalAmount}: the canonical amount string, or the rule it broke.
 *
 * @example
 * ```ts
 * import { Money } from "@pc/core"
 *
 * const result: Money.CanonicalAmountResult = Money.canonicalAmount(10.5, "USD")
 * if (result.ok) result.amount // "10.50"
 * ```
 */
export type CanonicalAmountResult =
  | { readonly ok: true; readonly amount: string }
  | { readonly ok: false; readonly error: AmountError }

/**
 * The largest number of digits allowed before the decimal point.
 *
 * @example
 * ```ts
 * import { Money } from "@pc/core"
 *
 * Money.MAX_INTEGER_DIGITS // 12
 * ```
 */
export const MAX_INTEGER_DIGITS = 12

/**
 * Tells whether `code` is an active ISO 4217 alphabetic currency code with minor units; never fails.
 *
 * @example
 * ```ts
 * import { Money } from "@pc/core"
 *
 * Money.isCurrencyCode("USD") // true
 * Money.isCurrencyCode("usd") // false (upper case only)
 * Money.isCurrencyCode("HRK") // false (withdrawn)
 * ```
 */
export const isCurrencyCode = (code: string): boolean =>
  typeof code === "string" && /^[A-Z]{3}$/.test(code) && Object.hasOwn(ISO_4217, code)

/**
 * Returns the ISO 4217 minor unit (number of decimals) of `code`, or `undefined` when it is not an active code.
 *
 * @example
 * ```ts
 * import { Money } from "@pc/core"
 *
 * Money.minorUnits("USD") // 2
 * Money.minorUnits("JPY") // 0
 * Money.minorUnits("KWD") // 3
 * Money.minorUnits("XAU") // undefined (no minor unit)
 * ```
 */
export const minorUnits = (code: string): number | undefined => (isCurrencyCode(code) ? ISO_4217[code] : undefined)

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/
const NEGATIVE_DECIMAL = /^-(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/
const EXPONENT = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][+-]?[0-9]+$/

/**
 * Parses a JSON amount (a string such as `"10.00"` or a number such as `10.5`) in `currency` into integer
 * minor units, without floating-point arithmetic. Fails, as `{ ok: false, error }`, with `UnknownCurrency`,
 * `WrongType`, `NotFinite`, `ExponentNotation`, `NotADecimal`, `NotPositive`, `TooManyIntegerDigits` or
 * `TooManyDecimals` (decimals are counted as written, so `"10.000"` is refused for USD).
 *
 * @example
 * ```ts
 * import { Money } from "@pc/core"
 *
 * Money.parseAmount("10.00", "USD") // { ok: true, money: { currency: "USD", minor: 1000n } }
 * Money.parseAmount(0.1 + 0.2, "USD")
 * // { ok: false, error: { _tag: "AmountError", reason: "TooManyDecimals",
 * //   message: "amount 0.30000000000000004 has 17 decimals but USD allows at most 2" } }
 * ```
 */
export const parseAmount = (amount: string | number, currency: string): ParseAmountResult => {
  const digits = minorUnits(currency)
  if (digits === undefined) {
    return fail(
      "UnknownCurrency",
      `currency ${show(currency)} is not an active ISO 4217 code with minor units (3 upper-case letters, e.g. USD)`
    )
  }
  let text: string
  if (typeof amount === "number") {
    if (!Number.isFinite(amount)) return fail("NotFinite", `amount ${String(amount)} is not a finite number`)
    if (amount <= 0) return fail("NotPositive", `amount ${String(amount)} is not positive: it must be greater than 0`)
    text = String(amount)
  } else if (typeof amount === "string") {
    text = amount
  } else {
    return fail("WrongType", `amount must be a JSON string or number, got ${typeof amount}`)
  }
  const match = DECIMAL.exec(text)
  if (match === null) {
    if (EXPONENT.test(text)) {
      return fail(
        "ExponentNotation",
        `amount ${show(text)} uses exponent notation; write it as a plain decimal such as 10.00`
      )
    }
    if (NEGATIVE_DECIMAL.test(text)) {
      return fail("NotPositive", `amount ${show(text)} is not positive: it must be greater than 0`)
    }
    return fail(
      "NotADecimal",
      `amount ${show(text)} is not a plain decimal: digits with an optional fraction, no sign, exponent, ` +
        `whitespace, leading zero or bare dot (e.g. 10.00)`
    )
  }
  const integer = match[1] ?? ""
  const fraction = match[2] ?? ""
  if (integer.length > MAX_INTEGER_DIGITS) {
    return fail(
      "TooManyIntegerDigits",
      `amount ${show(text)} has ${integer.length} integer digits but at most ${MAX_INTEGER_DIGITS} are allowed`
    )
  }
  if (fraction.length > digits) {
    return fail(
      "TooManyDecimals",
      `amount ${show(text)} has ${fraction.length} decimals but ${currency} allows at most ${digits}`
    )
  }
  const minor = BigInt(integer + fraction.padEnd(digits, "0"))
  if (minor === 0n) return fail("NotPositive", `amount ${show(text)} is not positive: it must be greater than 0`)
  return { ok: true, money: Object.freeze({ currency, minor }) }
}

/**
 * Writes `money` as its canonical decimal string with exactly the currency's minor-unit decimals (a negative
 * amount gets a leading `-`). Throws a `RangeError` only if `money.currency` is not an active ISO 4217 code,
 * which cannot happen for money returned by {@link parseAmount}.
 *
 * @example
 * ```ts
 * import { Money } from "@pc/core"
 *
 * Money.formatAmount({ currency: "USD", minor: 1000n }) // "10.00"
 * Money.formatAmount({ currency: "JPY", minor: 100n }) // "100"
 * Money.formatAmount({ currency: "KWD", minor: 1500n }) // "1.500"
 * Money.formatAmount({ currency: "USD", minor: 5n }) // "0.05"
 * ```
 */
export const formatAmount = (money: Money): string => {
  const digits = minorUnits(money.currency)
  if (digits === undefined) {
    throw new RangeError(`currency ${show(money.currency)} is not an active ISO 4217 code with minor units`)
  }
  const sign = money.minor < 0n ? "-" : ""
  const abs = money.minor < 0n ? -money.minor : money.minor
  if (digits === 0) return sign + abs.toString()
  const padded = abs.toString().padStart(digits + 1, "0")
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`
}

/**
 * Parses an amount and writes it back canonically (`10.5` in USD becomes `"10.50"`), as the client sends it.
 * Fails, as `{ ok: false, error }`, exactly as {@link parseAmount} does.
 *
 * @example
 * ```ts
 * import { Money } from "@pc/core"
 *
 * Money.canonicalAmount(10.5, "USD") // { ok: true, amount: "10.50" }
 * Money.canonicalAmount("1.5", "KWD") // { ok: true, amount: "1.500" }
 * Money.canonicalAmount("10.000", "USD").ok // false (TooManyDecimals)
 * ```
 */
export const canonicalAmount = (amount: string | number, currency: string): CanonicalAmountResult => {
  const parsed = parseAmount(amount, currency)
  return parsed.ok ? { ok: true, amount: formatAmount(parsed.money) } : parsed
}

const fail = (reason: AmountErrorReason, message: string): { readonly ok: false; readonly error: AmountError } => ({
  ok: false,
  error: { _tag: "AmountError", reason, message }
})

/** Quotes strings that would read ambiguously in a message (empty, whitespace, very long); others as is. */
const show = (value: string): string => {
  const text = String(value)
  const clipped = text.length > 40 ? `${text.slice(0, 40)}...` : text
  return /^[\x21-\x7e]+$/.test(clipped) ? clipped : JSON.stringify(clipped)
}
