// The per-query reservation ledger: before a per-query run starts, one run's price is reserved against
// the renter's on-chain balance, so concurrent runs can never promise more than the balance holds.
//
// One item per (listing, wallet) holds the reservations in flight (a lease map, ledger.store.ts) and a
// settlement sequence that advances each time a reservation turns into an on-chain charge. A reservation
// is admitted by one conditional write: "fewer than floor(balance / price) reservations in flight, and
// no settlement since I read the balance". The sequence is read before the balance, so a balance read
// that predates a charge whose reservation is already gone can never be used: the charge advanced the
// sequence and the write is refused and retried with fresh figures. A charged run leaves the map in the
// same write that advances the sequence; a run that is not charged just leaves it. A holder that dies
// leaves a lease that expires (after the run's timeout plus the settlement window) and is swept.
//
// A balance lives on the listing's contract: the Marketplace (ETH) or the TokenMarketplace (a token). Its
// ledger is that contract's (ledger.store.ts), and its balance is read from that contract. Admission names
// the contract; a settlement that does not is answered from the index (a listing never moves), so the
// ledger it follows is always the one the run reserved on.
import type { Address } from "viem";
import type { Services } from "../services.ts";
import type { Market } from "../../chain/client.ts";
import { ApiError } from "../../errors.ts";
import { contractOf } from "../../chain/market-contract.ts";
import { readPerQueryBalance } from "../../chain/read-per-query-balance.ts";
import { listingMarket } from "../../credentials/market.ts";
import { acquireLease } from "../leases/leases.ts";
import { chargeCapRefusal, readCapRemaining } from "./charge-cap.ts";
import { reservationLedger } from "./ledger.store.ts";

/** How long a reservation outlives its run's timeout before an abandoned one may be swept. */
export const SETTLEMENT_WINDOW_MS = 10 * 60_000;
const ATTEMPTS = 12;
/** More reservations than this per credential are never in flight (the concurrency limit is lower anyway). */
const MAX_RESERVATIONS = 1000;

async function liveBalance(services: Services, onChainId: `0x${string}`, wallet: Address, market: Market): Promise<bigint> {
  try {
    const { balanceWei, revoked } = await readPerQueryBalance(services.chain, { listingId: onChainId, buyer: wallet, market });
    return revoked ? 0n : balanceWei;
  } catch (error) {
    throw new ApiError("service_unavailable", "The chain could not be reached to check the balance; retry.", { cause: error });
  }
}

/** The contract of a run's balance: as named, or as the index says. */
async function marketOf(services: Services, onChainId: `0x${string}`, market: Market | undefined): Promise<Market> {
  return market ?? (await listingMarket(services, onChainId)) ?? "eth";
}

/**
 * Reserves one run at `priceWei` (in the smallest unit of the balance's currency) for `runId`, against the
 * balance on `market`'s contract (default eth). Throws 403 insufficient_balance when the balance cannot
 * cover one run, and 429 (Retry-After) when it can but every run it covers is already in flight.
 */
export async function reserveRun(services: Services, options: { onChainId: `0x${string}`; wallet: Address; runId: string; priceWei: bigint; expiresAt: number; market?: Market; capped?: boolean }): Promise<void> {
  const market = options.market ?? "eth";
  const ledger = reservationLedger(services.tables, options.onChainId, options.wallet, market);
  const runsOf = (amount: bigint) => {
    const covered = options.priceWei > 0n ? amount / options.priceWei : 0n;
    return Number(covered > BigInt(MAX_RESERVATIONS) ? BigInt(MAX_RESERVATIONS) : covered);
  };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // The order matters: the sequence first, then the balance and the cap (see the header).
    const seq = (await ledger.read())?.settled_seq ?? 0;
    const [balance, cap] = await Promise.all([
      liveBalance(services, options.onChainId, options.wallet, market),
      options.capped ? readCapRemaining(services, options.onChainId, options.wallet, market) : null,
    ]);
    const byBalance = runsOf(balance);
    const byCap = cap ? runsOf(cap.remaining) : Number.POSITIVE_INFINITY;
    const limit = Math.min(byBalance, byCap);
    const outcome =
      limit === 0
        ? "full"
        : await acquireLease(ledger, options.runId, { limit, expiresAt: options.expiresAt, settledSeq: seq });
    if (outcome === "acquired") return;
    if (byBalance === 0) {
      throw new ApiError("insufficient_balance", "The per-task balance cannot cover a run at the listing's price; top it up with topUpBalance.", {
        onChainError: { contract: contractOf(market), error: "InsufficientBalance" },
      });
    }
    // The cap's period can take no more runs (charges landed since admission read it): its refusal.
    if (byCap === 0) throw chargeCapRefusal(cap, options.priceWei, contractOf(market))!;
    if (outcome === "full") {
      // The balance (or the cap's period) covers runs, but every one it covers is in flight right now: a
      // passing condition, so 429 with Retry-After (the spec keeps 403 insufficient_balance for a balance
      // that cannot pay).
      const what = byCap < byBalance ? `Your charge cap's current period covers ${limit} more run(s)` : `The per-task balance covers ${limit} run(s)`;
      throw new ApiError("rate_limit_exceeded", `${what} and all of them are in flight; retry when one finishes${byCap < byBalance ? "" : ", or top up the balance to run more at once"}.`, {
        headers: { "Retry-After": "1" },
      });
    }
    // A settlement landed between the two reads: read both again.
  }
  throw new ApiError("service_unavailable", "The balance is changing too quickly to reserve a run; retry.", { headers: { "Retry-After": "1" } });
}

/** The run was charged on-chain: its reservation leaves and the settlement sequence advances. `market`:
 * the balance's contract (when absent, the index's answer for the listing). */
export async function settleReservation(services: Services, onChainId: `0x${string}`, wallet: Address, runId: string, market?: Market): Promise<void> {
  return reservationLedger(services.tables, onChainId, wallet, await marketOf(services, onChainId, market)).remove(runId, { settled: true });
}

/** The run will not be charged: its reservation is given back. */
export async function releaseReservation(services: Services, onChainId: `0x${string}`, wallet: Address, runId: string, market?: Market): Promise<void> {
  return reservationLedger(services.tables, onChainId, wallet, await marketOf(services, onChainId, market)).remove(runId);
}

/** A settlement still being retried keeps its reservation. */
export async function holdReservation(services: Services, onChainId: `0x${string}`, wallet: Address, runId: string, until: number, market?: Market): Promise<boolean> {
  return reservationLedger(services.tables, onChainId, wallet, await marketOf(services, onChainId, market)).extend(runId, until);
}
