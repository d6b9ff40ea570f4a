// The renter's on-chain charge cap (setChargeCap) alerts as a spending limit does (docs/design/alerts.md):
// at 80% of the cap charged in its period, and at 100% when what is left of the period no longer pays for
// another run at the price just charged. Read from the chain after every per-task charge (one batched
// request: the record's cap flag, the cap, the chain's time), so it is what the contract itself holds, a
// cap set after the run's admission included; a crossing is per period, amount and threshold, so the
// next period (or a changed cap) alerts again.
import type { Address, Hex } from "viem";
import type { Services } from "./services.ts";
import { readChargeCap } from "../chain/read-charge-cap.ts";
import { toListingId } from "../listings/ids.ts";
import { limitThresholdsReached } from "./crossings.ts";
import type { AlertType } from "./alert.store.ts";

export interface CappedCharge {
  runId: string;
  wallet: Address;
  onChainId: Hex;
  priceWei: bigint;
  market?: "token" | undefined;
}

/** Raises (once) an alert of `type` for the crossing `crossing`. */
export type RaiseOnce = (type: AlertType, crossing: string, data: Record<string, unknown>) => Promise<void>;

export async function chargeCapAlerts(services: Services, run: CappedCharge, raise: RaiseOnce): Promise<void> {
  const cap = await readChargeCap(services.chain, { listingId: run.onChainId, buyer: run.wallet, market: run.market ?? "eth" });
  if (!cap) return;
  const listing = run.onChainId.toLowerCase();
  for (const threshold of limitThresholdsReached(cap.amount, cap.charged, run.priceWei)) {
    await raise("charge_cap", `cap#${listing}#${cap.periodStartsAt}#${cap.amount}#${threshold}`, {
      threshold,
      listing_id: toListingId(run.onChainId),
      amount: cap.amount.toString(),
      period_seconds: cap.periodSeconds,
      spent: cap.charged.toString(),
      remaining: cap.remaining.toString(),
      resets_at: new Date(cap.periodEndsAt * 1000).toISOString(),
      run_id: run.runId,
    });
  }
}
