// Per-query settlement (`consumeQuery`), sent by the protocol authority: charges one run at most once
// (the contract keys the charge by runRef) and at most `maxPrice`. The charged amount is read from the
// transaction's QueryConsumed event, never assumed.
import { parseEventLogs, type Address, type TransactionReceipt } from "viem";
import type { AuthoritySigner, AuthorityRevertError, AuthorityUnavailableError } from "./authority.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface ConsumeQueryParameters {
  listingId: `0x${string}`;
  buyer: Address;
  /** The run's bytes32 reference (runRef). */
  runRef: `0x${string}`;
  /** The most the contract may take: the price the run was admitted at. */
  maxPrice: bigint;
}

export interface ConsumeQueryReturnType {
  receipt: TransactionReceipt;
  /** What the contract answered: false when the run was already charged (a retry whose first attempt landed). */
  charged: boolean;
  /** The price of this transaction's QueryConsumed event for the run, when it carries one. */
  priceWei: bigint | undefined;
}

/** The contract refused the charge (AuthorityRevertError, with its custom error), or the outcome is
 * unknown (AuthorityUnavailableError). */
export type ConsumeQueryErrorType = AuthorityRevertError | AuthorityUnavailableError;

export async function consumeQuery(authority: AuthoritySigner, { listingId, buyer, runRef, maxPrice }: ConsumeQueryParameters): Promise<ConsumeQueryReturnType> {
  const { receipt, result } = await authority.write("consumeQuery", [listingId, buyer, runRef, maxPrice]);
  const event = parseEventLogs({ abi: marketplaceAbi, eventName: "QueryConsumed", logs: receipt.logs }).find((log) => log.args.runRef === runRef);
  return { receipt, charged: result === true, priceWei: event?.args.price };
}
