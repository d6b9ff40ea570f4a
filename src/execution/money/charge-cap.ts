// The renter's on-chain charge cap at admission: a per-task run whose price the cap's current period
// cannot take any more is refused before any work (402 spend_limit_reached, its `on_chain_error` naming
// the contract's ChargeCapExceeded: the cap the contract itself enforces, not a key's or an app's limit;
// decision 0197), rather than run and then refused by the contract at settlement. The cap is read beside
// the balance (src/chain/read-charge-cap.ts), in the same batched request.
import type { Address } from "viem";
import type { Services } from "../services.ts";
import { ApiError } from "../../errors.ts";
import type { Market } from "../../chain/client.ts";
import { readChargeCap, type ChargeCapReading } from "../../chain/read-charge-cap.ts";

/** Checks a run at `priceWei` against the cap read; throws the refusal, or gives the reading (null: no cap). */
export type ChargeCapCheck = (priceWei: bigint) => ChargeCapReading | null;

/** The refusal of a run at `price` the cap's period cannot take, or null when it fits (or no cap is set). */
export function chargeCapRefusal(cap: ChargeCapReading | null, price: bigint, contract = "Marketplace"): ApiError | null {
  if (!cap || cap.charged + price <= cap.amount) return null;
  // The period ends on the chain's clock: the wait is counted from the chain's time of the reading, so
  // a chain whose clock runs ahead of (or behind) the service's still gives the right Retry-After.
  const endsAt = new Date(cap.periodEndsAt * 1000).toISOString();
  const retryAfter = Math.max(1, cap.periodEndsAt - cap.at);
  return new ApiError(
    "spend_limit_reached",
    `Your on-chain charge cap on this listing is reached: ${cap.amount} wei per ${cap.periodSeconds} s, ${cap.charged} wei charged in the current period, and this run costs ${price} wei. The period ends at ${endsAt}; the cap is yours to change on-chain (setChargeCap).`,
    { onChainError: { contract, error: "ChargeCapExceeded" }, headers: { "Retry-After": String(retryAfter) } },
  );
}

/**
 * The cap's part of the reservation ledger's limit: how many runs at `price` the period can still take,
 * read with the balance after the settlement sequence (ledger.ts), so concurrent admissions never promise
 * the cap more than it takes. Null when no cap is set.
 */
export async function readCapRemaining(services: Services, listingId: `0x${string}`, wallet: Address, market: Market): Promise<ChargeCapReading | null> {
  try {
    return await readChargeCap(services.chain, { listingId, buyer: wallet, market });
  } catch (error) {
    throw new ApiError("service_unavailable", "The chain could not be reached to check the charge cap; retry.", { cause: error, headers: { "Retry-After": "1" } });
  }
}

/**
 * Starts reading the caller's cap on the listing now (so it travels in the admission's batch), and gives
 * back the check to apply once the run's price is known. A chain that does not answer makes the check
 * refuse with 503, as the balance read does.
 */
export function checkChargeCap(services: Services, listingId: `0x${string}`, wallet: Address, market: Market = "eth"): Promise<ChargeCapCheck> {
  const contract = market === "eth" ? "Marketplace" : "TokenMarketplace";
  return readChargeCap(services.chain, { listingId, buyer: wallet, market }).then(
    (cap) => (priceWei: bigint) => {
      const refusal = chargeCapRefusal(cap, priceWei, contract);
      if (refusal) throw refusal;
      return cap;
    },
    (error: unknown) => () => {
      throw new ApiError("service_unavailable", "The chain could not be reached to check the charge cap; retry.", { cause: error, headers: { "Retry-After": "1" } });
    },
  );
}
