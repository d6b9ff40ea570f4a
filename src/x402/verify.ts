// Whether an x402 payment pays for the run it came with: first what the signed authorization says
// (checked here, with no chain: the accepted option is ours, the signature recovers to `from` under the
// token's EIP-712 domain, the amount, the recipient and the time window), then what only the chain knows
// (checkPaymentOnChain: the nonce is unused and the payer holds the amount). Each refusal carries the
// reason code @x402/evm's own facilitator uses, so a client reads it as it would from any facilitator.
import { getAddress, isAddressEqual, verifyTypedData } from "viem";
import { authorizationTypes } from "@x402/evm";
import type { PaymentRequirements } from "@x402/core/types";
import type { Eip3009Payment } from "./headers.ts";

/** The reasons a payment is refused, as @x402/evm's exact facilitator names them (plus the asset and the
 * amount of the accepted option, which the library checks by matching requirements). */
export const PAYMENT_REFUSALS = {
  scheme: "invalid_exact_evm_scheme",
  network: "invalid_exact_evm_network_mismatch",
  asset: "invalid_exact_evm_asset_mismatch",
  payTo: "invalid_exact_evm_recipient_mismatch",
  amount: "invalid_exact_evm_payload_authorization_value_mismatch",
  signature: "invalid_exact_evm_signature",
  expired: "invalid_exact_evm_payload_authorization_valid_before",
  notYetValid: "invalid_exact_evm_payload_authorization_valid_after",
  nonceUsed: "invalid_exact_evm_nonce_already_used",
  balance: "invalid_exact_evm_insufficient_balance",
} as const;
export type PaymentRefusal = (typeof PAYMENT_REFUSALS)[keyof typeof PAYMENT_REFUSALS];

export type PaymentCheck = { ok: true } | { ok: false; reason: PaymentRefusal; message: string };

/** An authorization must stay valid at least this long after it is checked: the run and its settlement
 * happen inside its window (x402's facilitator asks 6 s; a run may take its whole timeout). */
export const MIN_VALIDITY_SECONDS = 6;

const refuse = (reason: PaymentRefusal, message: string): PaymentCheck => ({ ok: false, reason, message });

/** What the signed payment says, against the one option we offered. `nowSeconds`: the chain's time. */
export async function checkPayment(payment: Eip3009Payment, required: PaymentRequirements, nowSeconds: number): Promise<PaymentCheck> {
  const { payload, authorization: auth } = payment;
  const accepted = payload.accepted;
  if (accepted.scheme !== required.scheme) return refuse(PAYMENT_REFUSALS.scheme, `Only the ${required.scheme} scheme is accepted, not ${accepted.scheme}.`);
  if (accepted.network !== required.network) return refuse(PAYMENT_REFUSALS.network, `The payment is for ${accepted.network}; this listing is paid on ${required.network}.`);
  if (!sameAddress(accepted.asset, required.asset)) return refuse(PAYMENT_REFUSALS.asset, `The payment is in ${accepted.asset}; this listing is paid in ${required.asset}.`);
  if (!sameAddress(auth.to, required.payTo) || !sameAddress(accepted.payTo, required.payTo)) return refuse(PAYMENT_REFUSALS.payTo, `The authorization pays ${auth.to}; payments go to ${required.payTo}.`);
  if (auth.value !== required.amount || accepted.amount !== required.amount) return refuse(PAYMENT_REFUSALS.amount, `The authorization is for ${auth.value}; one run costs exactly ${required.amount}.`);
  if (BigInt(auth.validBefore) < BigInt(nowSeconds + MIN_VALIDITY_SECONDS)) return refuse(PAYMENT_REFUSALS.expired, `The authorization expires at ${auth.validBefore}, before it could be settled.`);
  if (BigInt(auth.validBefore) > BigInt(nowSeconds + required.maxTimeoutSeconds + 60)) {
    // A window longer than the one offered would let a payment be held back and replayed much later.
    return refuse(PAYMENT_REFUSALS.expired, `The authorization is valid until ${auth.validBefore}, longer than the ${required.maxTimeoutSeconds} s offered.`);
  }
  if (BigInt(auth.validAfter) > BigInt(nowSeconds)) return refuse(PAYMENT_REFUSALS.notYetValid, `The authorization is valid only after ${auth.validAfter}.`);
  const extra = required.extra as { name: string; version: string };
  let valid = false;
  try {
    valid = await verifyTypedData({
      address: getAddress(auth.from),
      domain: { name: extra.name, version: extra.version, chainId: Number(required.network.split(":")[1]), verifyingContract: getAddress(required.asset) },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: { from: getAddress(auth.from), to: getAddress(auth.to), value: BigInt(auth.value), validAfter: BigInt(auth.validAfter), validBefore: BigInt(auth.validBefore), nonce: auth.nonce },
      signature: payment.signature,
    });
  } catch {
    valid = false;
  }
  if (!valid) return refuse(PAYMENT_REFUSALS.signature, `The signature is not ${auth.from}'s authorization of this transfer.`);
  return { ok: true };
}

function sameAddress(a: string, b: string): boolean {
  try {
    return isAddressEqual(getAddress(a), getAddress(b));
  } catch {
    return false;
  }
}

/** What only the chain knows: the nonce is unused and the payer holds the amount. */
export function checkPaymentState(payment: Eip3009Payment, state: { nonceUsed: boolean; balance: bigint }): PaymentCheck {
  if (state.nonceUsed) return refuse(PAYMENT_REFUSALS.nonceUsed, `The authorization's nonce ${payment.authorization.nonce} was already used.`);
  if (state.balance < BigInt(payment.authorization.value)) return refuse(PAYMENT_REFUSALS.balance, `${payment.authorization.from} holds ${state.balance}, less than the ${payment.authorization.value} authorized.`);
  return { ok: true };
}
