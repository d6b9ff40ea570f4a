// Batched x402 settlement (`settlePayments` on the TokenMarketplace), sent by the protocol authority: each
// payment is an EIP-3009 transferWithAuthorization the payer signed to the TokenMarketplace for one run of
// a per-task listing. The contract settles each or refuses it (PaymentRefused with the selector of its
// reason) without reverting the others, and marks the run's reference charged as consumeQueries does. What
// happened to each payment is read from the receipt's events, never assumed (as consume-queries.ts).
// The batch is packed, not ABI-encoded (decision 0256): the payments grouped by listing and signed value,
// each group a header (listing id, value, count) and 135 bytes a payment; each group's settled payments
// are reported together in one PaymentsSettled, a word each (payer and run), after the group's refusals.
import { concatHex, encodeFunctionData, numberToHex, parseEventLogs, size, toFunctionSelector, type Address, type Hex, type Log, type TransactionReceipt } from "viem";
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
  /** The run's charge reference, dense (below 2^64, as the service hands them out): the contract marks
   * it charged. */
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
const refusalName = (reason: Hex): string => errorNames.get(reason.toLowerCase()) ?? reason;

/** The bytes of a group's header in a settlePayments batch: listing id (32), value (32), count (2). */
export const GROUP_HEADER_BYTES = 66;
/** The bytes of one payment: payer (20), validAfter (5), validBefore (5), nonce (32), runRef (8), r (32),
 * s (32), v (1). */
export const PAYMENT_BYTES = 135;
/** The most payments one group holds (its count is two bytes); more of one listing and value take more groups. */
export const MAX_GROUP_PAYMENTS = 0xffff;
/** The largest time the 5 bytes of validAfter and validBefore hold (the year 36812). */
const MAX_TIME = 2n ** 40n - 1n;
/** Run references below this are dense (the contract's bitmap); a batch takes no other. */
const DENSE_RUN_REFS = 2n ** 64n;
const RUN_REF_BITS = 2n ** 96n - 1n;

/**
 * The payments as settlePayments takes them: grouped by listing and signed value, the groups in the order
 * of their first payment, each group's payments in their order (so of two payments of one run, the one
 * given first is tried first), at most `maxCount` a group.
 */
export function paymentGroups(payments: readonly TokenPayment[], maxCount = MAX_GROUP_PAYMENTS): TokenPayment[][] {
  const open = new Map<string, TokenPayment[]>();
  const groups: TokenPayment[][] = [];
  for (const payment of payments) {
    const key = `${payment.listingId.toLowerCase()}:${payment.value}`;
    let group = open.get(key);
    if (!group || group.length >= maxCount) {
      group = [];
      groups.push(group);
      open.set(key, group);
    }
    group.push(payment);
  }
  return groups;
}

/** An authorization's time in its 5 bytes. One that does not fit (x402 verification refuses any before it
 * reaches a batch) is written as the largest that does: the token then refuses the signature, and the
 * payment is refused as AuthorizationFailed, the batch going on. */
const packTime = (t: bigint): Hex => numberToHex(t >= 0n && t <= MAX_TIME ? t : MAX_TIME, { size: 5 });

/** One payment's 135 bytes. A signature that is not 65 bytes (r, s, v) is written as zeros: the token
 * refuses it (AuthorizationFailed), as it would refuse the signature itself. Throws a RangeError for a run
 * reference that is not dense (an x402 run always gets one at admission). */
function packPayment(p: TokenPayment): Hex {
  const runRef = BigInt(p.runRef);
  if (runRef >= DENSE_RUN_REFS) throw new RangeError(`settlePayments takes dense run references (below 2^64); ${p.runRef} is not`);
  const signature = size(p.signature) === 65 ? p.signature : numberToHex(0, { size: 65 });
  return concatHex([numberToHex(BigInt(p.from), { size: 20 }), packTime(p.validAfter), packTime(p.validBefore), numberToHex(BigInt(p.nonce), { size: 32 }), numberToHex(runRef, { size: 8 }), signature]);
}

/** The payments of a PaymentsSettled event, each word the payer (its high 160 bits) and the run reference
 * (its low 96 bits). */
export function settledPaymentsOf(words: readonly bigint[]): { payer: Address; runRef: Hex }[] {
  return words.map((word) => ({ payer: numberToHex(word >> 96n, { size: 20 }), runRef: numberToHex(word & RUN_REF_BITS, { size: 32 }) }));
}

/**
 * The packed batch `settlePayments` takes (TokenMarketplace.sol's NatSpec): for each group of
 * `paymentGroups`, its listing id (32 bytes), the value its payments signed (32) and their count (2),
 * then each payment's 135 bytes.
 *
 * @example
 * const batch = settlePaymentsBatch([payment]); // 66 + 135 bytes
 */
export function settlePaymentsBatch(payments: readonly TokenPayment[]): Hex {
  const parts: Hex[] = [];
  for (const group of paymentGroups(payments)) {
    const first = group[0]!;
    parts.push(numberToHex(BigInt(first.listingId), { size: 32 }), numberToHex(first.value, { size: 32 }), numberToHex(group.length, { size: 2 }));
    for (const payment of group) parts.push(packPayment(payment));
  }
  return parts.length === 0 ? "0x" : concatHex(parts);
}

/** The calldata of `settlePayments(batch)` for `payments`. */
export function settlePaymentsData(payments: readonly TokenPayment[]): Hex {
  return encodeFunctionData({ abi: tokenMarketplaceAbi, functionName: "settlePayments", args: [settlePaymentsBatch(payments)] });
}

type Refused = { eventName: "PaymentRefused"; args: { listingId: Hex; payer: Address; runRef: Hex; reason: Hex } };
type Settled = { eventName: "PaymentsSettled"; args: { listingId: Hex; amount: bigint; fee: bigint; payments: readonly bigint[] } };

/**
 * Matches the receipt's PaymentRefused and PaymentsSettled events to the payments. The contract handles the
 * groups of `paymentGroups` in order; for each it emits a PaymentRefused per refused payment as it goes,
 * then one PaymentsSettled listing the settled ones in order, so a group's events are its k refusals and,
 * when k is below its size, that event. Within a group, a payment takes the next refusal or the next
 * settled entry naming its run, listing and payer; when both do (two payments of one run), a refusal as
 * RunAlreadyCharged came after the settled one, any other before it. A payment with neither is "NoEvent".
 */
export function paymentOutcomesOf(receipt: TransactionReceipt, payments: readonly TokenPayment[]): SettlePaymentOutcome[] {
  const contract = receipt.to?.toLowerCase();
  const ours = (receipt.logs as Log[]).filter((log) => log.address.toLowerCase() === contract);
  const events = (parseEventLogs({ abi: tokenMarketplaceAbi, logs: ours }) as unknown as (Refused | Settled | { eventName: string })[]).filter(
    (log): log is Refused | Settled => log.eventName === "PaymentsSettled" || log.eventName === "PaymentRefused",
  );
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const outcomes = new Map<TokenPayment, SettlePaymentOutcome>();
  let next = 0;
  for (const group of paymentGroups(payments)) {
    const refusals: Refused[] = [];
    for (let event = events[next]; refusals.length < group.length && event?.eventName === "PaymentRefused"; event = events[++next]) refusals.push(event);
    const candidate = events[next];
    let settled: Settled | undefined;
    if (refusals.length < group.length && candidate?.eventName === "PaymentsSettled" && same(candidate.args.listingId, group[0]!.listingId)) {
      settled = candidate;
      next += 1;
    }
    const entries = settled ? settledPaymentsOf(settled.args.payments) : [];
    let r = 0;
    let s = 0;
    for (const payment of group) {
      const refusal = refusals[r];
      const entry = entries[s];
      const refusedHere = refusal !== undefined && same(refusal.args.runRef, payment.runRef) && same(refusal.args.listingId, payment.listingId) && same(refusal.args.payer, payment.from);
      const settledHere = entry !== undefined && same(entry.runRef, payment.runRef) && same(entry.payer, payment.from);
      if (refusedHere && !(settledHere && refusalName(refusal.args.reason) === "RunAlreadyCharged")) {
        r += 1;
        outcomes.set(payment, { outcome: "refused", error: refusalName(refusal.args.reason) });
      } else if (settledHere) {
        s += 1;
        outcomes.set(payment, { outcome: "settled", amount: settled!.args.amount, fee: settled!.args.fee });
      }
    }
  }
  return payments.map((payment) => outcomes.get(payment) ?? { outcome: "refused", error: "NoEvent" });
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
