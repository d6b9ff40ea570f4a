// A renter's charge cap on a listing (`chargeCaps`), read live with the per-task balance it is counted
// against (`perQueryBalances`) and the chain's time: three eth_calls the client's transport sends as one
// batched request (and, started beside the admission's balance read, in the same batch as it). What the
// current period has charged is `baseline - balance` until the period ends, then nothing (the contract's
// ChargeCapRules); the same answer the contract gives a charge now.
import type { Address } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { marketAddress, type ChainClient, type Market } from "./client.ts";
import { ChainReadError } from "./errors.ts";

export interface ReadChargeCapParameters {
  /** The on-chain listing id (bytes32). */
  listingId: `0x${string}`;
  buyer: Address;
  /** The contract the listing lives on (default eth: the Marketplace). */
  market?: Market;
}

/** A cap as a charge now would meet it; amounts in the listing's currency's smallest unit (wei for ETH). */
export interface ChargeCapReading {
  /** The most charged per period. */
  amount: bigint;
  periodSeconds: number;
  /** The current period's start and end (unix seconds): a charge at or after `periodEndsAt` opens a new one. */
  periodStartsAt: number;
  periodEndsAt: number;
  /** Charged in the current period. */
  charged: bigint;
  /** What may still be charged in it. */
  remaining: bigint;
  /** The chain's time the reading is at (unix seconds): the period ends `periodEndsAt - at` seconds from
   * now, whatever the service's clock says. */
  at: number;
}

/** The chain did not answer. */
export type ReadChargeCapErrorType = ChainReadError;

/** The raw cap record as `chargeCaps` returns it. */
export type ChargeCapRecord = readonly [amount: bigint, period: number, periodStart: number, baseline: bigint];

/**
 * The cap a charge at chain time `now` meets, from the record, the renter's balance and whether the
 * balance record says the renter set one. Null when there is no cap.
 */
export function chargeCapAt(capped: boolean, [amount, period, periodStart, baseline]: ChargeCapRecord, balance: bigint, now: number): ChargeCapReading | null {
  if (!capped || period === 0) return null;
  let start = periodStart;
  let charged = baseline - balance;
  if (now >= start + period) {
    start += Math.floor((now - start) / period) * period;
    charged = 0n;
  }
  return { amount, periodSeconds: period, periodStartsAt: start, periodEndsAt: start + period, charged, remaining: charged >= amount ? 0n : amount - charged, at: now };
}

/**
 * The renter's cap on the listing as a charge now would meet it, or null when the renter set none.
 * The TokenMarketplace's `chargeCaps` and `perQueryBalances` have the Marketplace's signatures and
 * layouts, so one ABI reads both. Throws ChainReadError when the chain does not answer.
 */
export async function readChargeCap(chain: ChainClient, { listingId, buyer, market = "eth" }: ReadChargeCapParameters): Promise<ChargeCapReading | null> {
  const address = marketAddress(chain, market);
  try {
    const [record, cap, block] = await Promise.all([
      chain.client.readContract({ address, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listingId, buyer] }),
      chain.client.readContract({ address, abi: marketplaceAbi, functionName: "chargeCaps", args: [listingId, buyer] }),
      chain.client.getBlock({ blockTag: "latest" }),
    ]);
    const [balance, , , , , capped] = record;
    return chargeCapAt(capped, cap, balance, Number(block.timestamp));
  } catch (error) {
    throw new ChainReadError("chargeCaps", { cause: error });
  }
}
