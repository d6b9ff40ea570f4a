// Batched per-query settlement (`consumeQueries`), sent by the protocol authority: charges many runs in
// one transaction, each with consumeQuery's guarantees (at most once per runRef, at most its maxPrice,
// only on a valid per-query credential with enough balance). A refused charge does not revert the
// others: the contract reports it with a QueryRefused event carrying the selector of the custom error
// consumeQuery would have reverted with. What happened to each charge is read from the receipt's
// events, never assumed. The settler sends its batches through `sendConsumeQueries` (its own sender,
// nonces and fees, without waiting for the receipt); everything else through `consumeQueries`.
import { encodeFunctionData, parseEventLogs, toFunctionSelector, type Address, type Hex, type Log, type TransactionReceipt } from "viem";
import type { AuthoritySigner, AuthorityRevertError, AuthorityUnavailableError } from "./authority.ts";
import type { AuthoritySender, PendingTx } from "./authority-sender.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface ConsumeQueriesCharge {
  listingId: `0x${string}`;
  buyer: Address;
  /** The run's bytes32 reference. Below 2^64 a dense reference (one bit of the contract's run marks);
   * the service hands them out in aligned blocks of 256 so a batch touches few words. */
  runRef: `0x${string}`;
  /** The most the contract may take: the price the run was admitted at. */
  maxPrice: bigint;
}

export interface ConsumeQueriesParameters {
  /** The runs to charge, in the order the contract charges them. */
  charges: readonly ConsumeQueriesCharge[];
}

/** What the batch did to one charge. */
export type ConsumeQueriesOutcome =
  /** Charged now: `price` debited (the fee is part of it), `newBalance` the renter's balance after it. */
  | { outcome: "charged"; price: bigint; fee: bigint; newBalance: bigint }
  /** Refused: `error` is the name of the contract's custom error (e.g. "InsufficientBalance"). */
  | { outcome: "refused"; error: string }
  /** Not charged by this batch because the run was charged before (earlier, or earlier in this batch). */
  | { outcome: "skipped" };

export interface ConsumeQueriesReturnType {
  receipt: TransactionReceipt;
  /** One outcome per charge, in the order of `charges`. */
  outcomes: ConsumeQueriesOutcome[];
}

/** The contract refused the whole batch (AuthorityRevertError: only Unauthorized or Reentrancy can), or
 * the outcome is unknown (AuthorityUnavailableError). */
export type ConsumeQueriesErrorType = AuthorityRevertError | AuthorityUnavailableError;

/** The contract's custom errors by selector: QueryRefused carries the selector only, not the arguments. */
const errorNames = new Map<string, string>(
  marketplaceAbi.filter((item) => item.type === "error").map((item) => [toFunctionSelector(item as never), item.name]),
);

/** The name of the custom error whose selector is `reason`, or the selector itself for one the ABI lacks. */
export function refusalName(reason: `0x${string}`): string {
  return errorNames.get(reason.toLowerCase()) ?? reason;
}

/** The calldata of `consumeQueries(charges)`. */
export function consumeQueriesData(charges: readonly ConsumeQueriesCharge[]): Hex {
  return encodeFunctionData({ abi: marketplaceAbi, functionName: "consumeQueries", args: [charges.map((c) => ({ listingId: c.listingId, buyer: c.buyer, runRef: c.runRef, maxPrice: c.maxPrice }))] });
}

export interface SendConsumeQueriesParameters extends ConsumeQueriesParameters {
  /** The gas limit the batch is sent with (the settler's gas model: an estimate is too slow for a batch). */
  gas: bigint;
  /** The chain's head as the sender sees it. */
  head: bigint;
  /** The TokenMarketplace, for token listings' charges (its consumeQueries takes the same charges and
   * emits the same events); absent: the Marketplace. */
  to?: Address;
}

/**
 * Sends `consumeQueries(charges)` through `sender` (the settler's: its nonce, its fees) and returns the
 * pending transaction at once; the sender reports its receipt, and `outcomesOf` decodes it.
 *
 * @example
 * const tx = await sendConsumeQueries(sender, { charges, gas: 400_000n, head });
 */
export function sendConsumeQueries(sender: AuthoritySender, { charges, gas, head, to }: SendConsumeQueriesParameters): Promise<PendingTx> {
  return to ? sender.send("charges", consumeQueriesData(charges), gas, head, to) : sender.send("charges", consumeQueriesData(charges), gas, head);
}

/**
 * Charges `charges` in one transaction from the authority and reports each charge's outcome.
 *
 * @example
 * const { outcomes } = await consumeQueries(authority, { charges: [{ listingId, buyer, runRef: toHex(256n, { size: 32 }), maxPrice }] });
 * // outcomes[0]: { outcome: "charged", price, fee, newBalance } | { outcome: "refused", error } | { outcome: "skipped" }
 */
export async function consumeQueries(authority: AuthoritySigner, { charges }: ConsumeQueriesParameters): Promise<ConsumeQueriesReturnType> {
  const { receipt } = await authority.write("consumeQueries", [charges.map((c) => ({ listingId: c.listingId, buyer: c.buyer, runRef: c.runRef, maxPrice: c.maxPrice }))]);
  return { receipt, outcomes: outcomesOf(receipt, charges) };
}

/**
 * Matches the receipt's QueryConsumed and QueryRefused events to the charges. The contract handles the
 * charges in order and emits at most one of the two per charge, none for a skip; once a reference is
 * charged every later charge of it is skipped. So walking the charges in order, the next event belongs to
 * the current charge exactly when it names the same run, listing and renter.
 */
export function outcomesOf(receipt: TransactionReceipt, charges: readonly ConsumeQueriesCharge[]): ConsumeQueriesOutcome[] {
  const marketplace = receipt.to?.toLowerCase();
  const ours = (receipt.logs as Log[]).filter((log) => log.address.toLowerCase() === marketplace);
  const events = parseEventLogs({ abi: marketplaceAbi, logs: ours }).filter(
    (log) => log.eventName === "QueryConsumed" || log.eventName === "QueryRefused",
  );
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  let next = 0;
  return charges.map((charge): ConsumeQueriesOutcome => {
    const event = events[next];
    if (!event || !same(event.args.runRef, charge.runRef) || !same(event.args.listingId, charge.listingId) || !same(event.args.buyer, charge.buyer)) {
      return { outcome: "skipped" };
    }
    next += 1;
    if (event.eventName === "QueryConsumed") return { outcome: "charged", price: event.args.price, fee: event.args.fee, newBalance: event.args.newBalance };
    return { outcome: "refused", error: refusalName(event.args.reason) };
  });
}
