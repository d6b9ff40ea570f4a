// Batched x402 settlement (`settlePayments` on the TokenMarketplace), sent by the protocol authority: each
// payment is an EIP-3009 transferWithAuthorization the payer signed to the TokenMarketplace for one run of
// a per-task listing. The contract settles each or refuses it (PaymentRefused with the selector of its
// reason) without reverting the others; the token's nonce is what keeps a payment from settling twice.
// What happened to each payment is read from the receipt's events, never assumed (as consume-queries.ts).
// The batch is packed, not ABI-encoded (decision 0256): the payments grouped by listing and signed value,
// each group a header (listing id, value, count) and 135 bytes a payment. Each group's refusals name
// their payer and run; its settled payments are counted in one PaymentsSettled after them, and named only
// by the transaction's input (decision 0262): `settledPaymentsOfTransaction` reads both.
import { concatHex, decodeFunctionData, encodeFunctionData, hexToBigInt, numberToHex, parseEventLogs, size, sliceHex, toFunctionSelector, type Address, type Hex, type Log, type TransactionReceipt } from "viem";
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
  /** The run's charge reference, dense (below 2^64, as the service hands them out): the batch names the
   * run by it. */
  runRef: Hex;
  /** The payer's 65-byte signature of the authorization. */
  signature: Hex;
}

export type SettlePaymentOutcome =
  /** Settled: `amount` moved from the payer, `fee` of it to the protocol, the rest to the listing's escrow;
   * `logIndex` is its group's PaymentsSettled. */
  | { outcome: "settled"; amount: bigint; fee: bigint; logIndex: number }
  /** Refused: the name of the contract's error (AuthorizationFailed, IncorrectPayment, ListingNotActive…). */
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
type Settled = { eventName: "PaymentsSettled"; args: { listingId: Hex; amount: bigint; fee: bigint; count: bigint }; logIndex: number };

/**
 * Matches the receipt's PaymentRefused and PaymentsSettled events to the payments. The contract handles the
 * groups of `paymentGroups` in order; for each it emits a PaymentRefused per refused payment as it goes,
 * then, when k of its n payments were refused and k is below n, one PaymentsSettled counting the n - k
 * others. So a group's events are its refusals, each naming its payer and run in the group's order, and
 * that event: a payment is refused when the next refusal names it, settled otherwise once the group's
 * PaymentsSettled counts exactly the payments left. A payment of a group whose events do not add up that
 * way, or of a receipt without them, is "NoEvent".
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
    const refused = new Map<TokenPayment, string>();
    for (const payment of group) {
      const event = events[next];
      if (event?.eventName !== "PaymentRefused") continue;
      const { listingId, payer, runRef, reason } = (event as Refused).args;
      if (!same(listingId, payment.listingId) || !same(payer, payment.from) || !same(runRef, payment.runRef)) continue;
      refused.set(payment, refusalName(reason));
      next += 1;
    }
    for (const [payment, error] of refused) outcomes.set(payment, { outcome: "refused", error });
    if (refused.size === group.length) continue;
    const candidate = events[next];
    if (candidate?.eventName !== "PaymentsSettled") continue;
    const settled = candidate as Settled;
    if (!same(settled.args.listingId, group[0]!.listingId) || settled.args.count !== BigInt(group.length - refused.size)) continue;
    next += 1;
    for (const payment of group) if (!refused.has(payment)) outcomes.set(payment, { outcome: "settled", amount: settled.args.amount, fee: settled.args.fee, logIndex: settled.logIndex });
  }
  return payments.map((payment) => outcomes.get(payment) ?? { outcome: "refused", error: "NoEvent" });
}

/** The payments of a settlePayments calldata, in batch order (the inverse of settlePaymentsData), or null
 * for calldata of another function or a batch that is not whole groups. */
export function batchPaymentsOf(input: Hex): TokenPayment[] | null {
  let batch: Hex;
  try {
    const call = decodeFunctionData({ abi: tokenMarketplaceAbi, data: input });
    if (call.functionName !== "settlePayments") return null;
    batch = (call.args as readonly [Hex])[0];
  } catch {
    return null;
  }
  const length = size(batch);
  const payments: TokenPayment[] = [];
  const at = (from: number, bytes: number) => sliceHex(batch, from, from + bytes, { strict: true });
  let offset = 0;
  while (offset < length) {
    if (length - offset < GROUP_HEADER_BYTES) return null;
    const listingId = at(offset, 32);
    const value = hexToBigInt(at(offset + 32, 32));
    const count = Number(hexToBigInt(at(offset + 64, 2)));
    offset += GROUP_HEADER_BYTES;
    if (count === 0 || length - offset < count * PAYMENT_BYTES) return null;
    for (let i = 0; i < count; i++, offset += PAYMENT_BYTES) {
      payments.push({
        listingId,
        from: at(offset, 20),
        value,
        validAfter: hexToBigInt(at(offset + 20, 5)),
        validBefore: hexToBigInt(at(offset + 25, 5)),
        nonce: at(offset + 30, 32),
        runRef: numberToHex(hexToBigInt(at(offset + 62, 8)), { size: 32 }),
        signature: concatHex([at(offset + 70, 64), at(offset + 134, 1)]),
      });
    }
  }
  return payments;
}

/** A settled x402 payment as a transaction's input and receipt state it. */
export interface SettledPayment {
  listingId: Hex;
  payer: Address;
  runRef: Hex;
  amount: bigint;
  fee: bigint;
  /** Its group's PaymentsSettled. */
  logIndex: number;
  /** Its place among its group's settled payments. */
  index: number;
}

/** The decoded transactions, by hash and block hash (a receipt in a block never changes; a transaction
 * mined again after a reorganisation has another block hash). Bounded: the oldest is dropped. */
const decoded = new Map<string, SettledPayment[]>();
const DECODED_KEPT = 512;

/**
 * The payments a settlePayments transaction settled, from its input (the batch names each payment's payer
 * and run) and its receipt (the refusals and each group's PaymentsSettled): what indexers read for
 * PaymentsSettled, which counts its payments and names none, for gas. A transaction that is not a direct
 * settlePayments call (the authority calls it itself) settles nothing here.
 */
export async function settledPaymentsOfTransaction(client: { getTransaction(args: { hash: Hex }): Promise<{ input: Hex; to: Address | null }>; getTransactionReceipt(args: { hash: Hex }): Promise<TransactionReceipt> }, hash: Hex, blockHash: Hex | null): Promise<SettledPayment[]> {
  const key = `${hash}:${blockHash ?? ""}`.toLowerCase();
  const known = decoded.get(key);
  if (known) return known;
  const [transaction, receipt] = await Promise.all([client.getTransaction({ hash }), client.getTransactionReceipt({ hash })]);
  const payments = batchPaymentsOf(transaction.input) ?? [];
  const outcomes = paymentOutcomesOf(receipt, payments);
  const settled: SettledPayment[] = [];
  const counted = new Map<number, number>();
  payments.forEach((payment, i) => {
    const outcome = outcomes[i]!;
    if (outcome.outcome !== "settled") return;
    const index = counted.get(outcome.logIndex) ?? 0;
    counted.set(outcome.logIndex, index + 1);
    settled.push({ listingId: payment.listingId, payer: payment.from, runRef: payment.runRef, amount: outcome.amount, fee: outcome.fee, logIndex: outcome.logIndex, index });
  });
  if (blockHash !== null && receipt.blockHash.toLowerCase() === blockHash.toLowerCase()) {
    if (decoded.size >= DECODED_KEPT) decoded.delete(decoded.keys().next().value!);
    decoded.set(key, settled);
  }
  return settled;
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
