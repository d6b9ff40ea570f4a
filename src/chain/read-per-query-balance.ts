// A renter's per-query balance for a listing (`perQueryBalances`), read live in one eth_call: the
// reservation ledger admits runs against it, and the access check reads the price the renter agreed to
// and whether a withdrawal is pending.
import type { Address } from "viem";
import { marketAddress, type ChainClient, type Market } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";

export interface ReadPerQueryBalanceParameters {
  listingId: `0x${string}`;
  buyer: Address;
  /** The contract the listing lives on (default eth: the Marketplace; token: amounts in token units). */
  market?: Market;
}

export interface ReadPerQueryBalanceReturnType {
  balanceWei: bigint;
  purchasedAt: number;
  /** The creator revoked the credential: the balance is withdrawable, not spendable. */
  revoked: boolean;
  /** The listing's price when the balance was last deposited: the price the renter agreed to, the most a
   * run is charged. */
  depositPriceWei: bigint;
  /** The renter asked to withdraw the balance (requestBalanceWithdrawal): no new run is admitted on it. */
  withdrawalRequested: boolean;
}

/** The chain did not answer. */
export type ReadPerQueryBalanceErrorType = ChainReadError;

/** Throws ChainReadError when the chain does not answer. */
export async function readPerQueryBalance(chain: ChainClient, { listingId, buyer, market = "eth" }: ReadPerQueryBalanceParameters): Promise<ReadPerQueryBalanceReturnType> {
  try {
    const [balanceWei, purchasedAt, revoked, depositPriceWei, withdrawalRequested] =
      market === "token"
        ? await chain.client.readContract({ address: marketAddress(chain, "token"), abi: tokenMarketplaceAbi, functionName: "perQueryBalances", args: [listingId, buyer] })
        : await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listingId, buyer] });
    return { balanceWei, purchasedAt, revoked, depositPriceWei, withdrawalRequested };
  } catch (error) {
    throw new ChainReadError("perQueryBalances", { cause: error });
  }
}
