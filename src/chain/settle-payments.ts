// Batched x402 settlement (`settlePayments` on the TokenMarketplace), sent by the protocol authority: each
// payment is an EIP-3009 transferWithAuthorization the payer signed to the TokenMarketplace for one run of
// a per-task listing. The contract settles each or refuses it (PaymentRefused with the selector of its
// reason) without reverting the others, and marks the run's reference charged as consumeQueries does. What
// happened to each payment is read from the receipt's events, never assumed (as consume-queries.ts).
import { encodeFunctionData, parseEventLogs, toFunctionSelector, type Address, type Hex, type Log, type TransactionReceipt } from "viem";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import type { AuthoritySender, PendingTx } from "./authority-sender.ts";

export interface TokenPayment {
  listingId: Hex;
  from: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  /** The run's charge reference: the contract marks it charged. */
  runRef: Hex;
  /** The payer's 65-byte signature of the authorization. */
  signature: Hex;
}

export type SettlePaymentOutcome =
  /** Settled: `amount` moved from the payer, `fee` of it to the protocol, the rest to the listing's escrow. */
  | { outcome: "settled"; amount: bigint; fee: bigint }
  /** Refused: the name of the contract's error (AuthorizationFailed, RunAlreadyCharged, IncorrectPayment…). */
  | { outcome: "refused"; error: string };

/** Errors by selector, the token contract's and the Marketplace's it raises. */
const errorNames = new Map<string, string>(
  [...tokenMarketplaceAbi, ...marketplaceAbi].filter((item) => item.type === "error").map((item) => [toFunctionSelector(item as never), item.name]),
);

/** The calldata of `settlePayments(payments)`. */
export function settlePaymentsData(payments: readonly TokenPayment[]): Hex {
  return encodeFunctionData({ abi: tokenMarketplaceAbi, functionName: "settlePayments", args: [payments.map((p) => ({ ...p }))] });
}

/**
 * Matches the receipt's PaymentSettled and PaymentRefused events to the payments: the contract handles
 * them in order and emits exactly one of the two for each, naming its run, listing and payer.
 */
export function paymentOutcomesOf(receipt: TransactionReceipt, payments: readonly TokenPayment[]): SettlePaymentOutcome[] {
  const contract = receipt.to?.toLowerCase();
  const ours = (receipt.logs as Log[]).filter((log) => log.address.toLowerCase() === contract);
  const events = parseEventLogs({ abi: tokenMarketplaceAbi, logs: ours }).filter((log) => log.eventName === "PaymentSettled" || log.eventName === "PaymentRefused");
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  let next = 0;
  return payments.map((payment): SettlePaymentOutcome => {
    const event = events[next];
    if (!event || !same(event.args.runRef, payment.runRef) || !same(event.args.listingId, payment.listingId) || !same(event.args.payer, payment.from)) {
      return { outcome: "refused", error: "NoEvent" };
    }
    next += 1;
    if (event.eventName === "PaymentSettled") return { outcome: "settled", amount: event.args.amount, fee: event.args.fee };
    return { outcome: "refused", error: errorNames.get(event.args.reason.toLowerCase()) ?? event.args.reason };
  });
}

/** An x402 payment's EIP-3009 fields as the contract takes them, from the payload's authorization. */
export function tokenPaymentOf(listingId: Hex, runRef: Hex, authorization: { from: string; value: string; validAfter: string; validBefore: string; nonce: string }, signature: Hex): TokenPayment {
  return {
    listingId,
    from: authorization.from as Address,
    value: BigInt(authorization.value),
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
    nonce: authorization.nonce as Hex,
    runRef,
    signature,
  };
}

/** Sends `settlePayments(payments)` to the TokenMarketplace through the settler's sender (its nonce, its
 * fees) and returns the pending transaction at once; `paymentOutcomesOf` decodes its receipt. */
export function sendSettlePayments(sender: AuthoritySender, { payments, gas, head, to }: { payments: readonly TokenPayment[]; gas: bigint; head: bigint; to: Address }): Promise<PendingTx> {
  return sender.send("charges", settlePaymentsData(payments), gas, head, to);
}
