// Maps an Effect error to its Promise class, for the Promise facade.
import type { CallbackVerificationError as EffectCallbackVerificationError } from "../CallbackVerificationError.js"
import type * as PaymentClientError from "../PaymentClientError.js"
import {
  CallbackVerificationError,
  ConfigurationError,
  DuplicateOrderError,
  InvalidRequestError,
  type PaymentConnectError,
  RateLimitedError,
  ServerError,
  SignatureRejectedError,
  TimeoutError,
  TransportError,
  UnexpectedResponseError
} from "../PaymentConnectError.js"

/** The Promise class of an Effect error. */
export const toPromiseError = (
  error: PaymentClientError.PaymentClientError | EffectCallbackVerificationError
): PaymentConnectError => {
  switch (error._tag) {
    case "SignatureRejected":
      return new SignatureRejectedError(error)
    case "InvalidRequest":
      return new InvalidRequestError(error)
    case "DuplicateOrder":
      return new DuplicateOrderError(error)
    case "RateLimited":
      return new RateLimitedError(error)
    case "ServerError":
      return new ServerError(error)
    case "TransportError":
      return new TransportError(error)
    case "Timeout":
      return new TimeoutError(error)
    case "UnexpectedResponse":
      return new UnexpectedResponseError(error)
    case "ConfigurationError":
      return new ConfigurationError(error)
    case "CallbackVerificationError":
      return new CallbackVerificationError(error)
  }
}
