// x402 v2 payments for token-priced per-task runs (docs/design/currencies.md).
export { MAX_TIMEOUT_SECONDS, networkOf, paymentRequired, paymentRequirements, X402_VERSION, type PriceInToken, type X402Token } from "./requirements.ts";
export { paymentRequiredHeader, paymentResponseHeader, readPaymentSignature, PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER, type Eip3009Payment } from "./headers.ts";
export { checkPayment, checkPaymentState, PAYMENT_REFUSALS, type PaymentCheck, type PaymentRefusal } from "./verify.ts";
