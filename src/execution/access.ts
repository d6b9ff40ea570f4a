// Step two of the two-step check on execution: before any agent work, the listing is resolved and the
// caller's credential is verified live against the contract (the source of truth). Every refusal is a
// 403 with the specification's code and, where the chain said it, the contract's custom error.
import type { Address } from "viem";
import type { Services } from "./services.ts";
import { ApiError, type ErrorCode } from "../errors.ts";
import { parseListingId } from "../listings/ids.ts";
import { readChainCredential } from "../credentials/verify.ts";
import { knownMarket, rememberMarket } from "../credentials/market.ts";
import { getChainListing } from "../listings/chain-listing.store.ts";
import { getAgent, getAgentAlias } from "../listings/listing.store.ts";
import type { Market } from "../chain/client.ts";
import { contractOf, marketOfListing } from "../chain/market-contract.ts";
import { readListing } from "../chain/read-listing.ts";
import { readPerQueryBalance, type ReadPerQueryBalanceReturnType } from "../chain/read-per-query-balance.ts";
import { formatEther } from "viem";
import { currencyOfRecord, isPublished, type AgentRecord } from "../listings/catalogue.ts";
import { formatAmount, type Currency } from "../listings/currency.ts";
import { checkChargeCap } from "./money/charge-cap.ts";
import { processCache } from "../cache.ts";
import type { RentalModel } from "@agent-rental/core/vocabulary";

export interface ExecutionAccess {
  listingId: string;
  onChainId: `0x${string}`;
  agent: AgentRecord & { kind: "declarative" | "connected"; logic_blob: string; logic_key: string };
  rentalModel: RentalModel;
  /** The contract the listing lives on: eth (the Marketplace) or token (the TokenMarketplace). */
  market: Market;
  /** The currency the listing is priced and paid in (ETH, or its token). */
  currency: Currency;
  /** The listing's price in the smallest unit of its currency (wei for ETH; per run for per_query). */
  priceWei: bigint;
  /** The per-query balance on-chain when checked, in the same unit (0 for the other models). */
  balanceWei: bigint;
  /** The renter set a charge cap on this per-task listing (setChargeCap): reservations are held against
   * its period's remainder as well as the balance (money/ledger.ts). Absent: no cap. */
  capped?: boolean;
}

/** The contract's ListingStatus.Paused. */
const LISTING_PAUSED = 2;
const AGENT_ID = /^[a-z][a-z0-9-]{1,62}-[0-9a-f]{8}$/;

// An agent id names its listing for good (the alias is written once, at registration), so resolved
// aliases are kept in the process: a run of a known agent starts without this read. Only found aliases
// are kept; an unknown id is looked up again next time.
const aliases = processCache<`0x${string}`>(10_000);

/** Resolves `agent_id` (an agent id `<name>-<8 hex>` or a listing id) to the on-chain listing id. */
export async function resolveAgentId(services: Services, agentId: string): Promise<`0x${string}`> {
  if (!AGENT_ID.test(agentId)) return parseListingId(agentId);
  const hit = aliases.get(services.tables, agentId);
  if (hit) return hit;
  const listingId = await getAgentAlias(services.tables, agentId);
  if (listingId === null) throw new ApiError("listing_not_found", `No published agent ${agentId}.`);
  const onChainId = parseListingId(listingId);
  aliases.set(services.tables, agentId, onChainId);
  return onChainId;
}

// `error` names the contract's custom error for the refusal. An expired subscription has none (the
// contract reports it as a status, and renewing it succeeds), so its refusal carries no on_chain_error.
const refusals: Record<string, { code: ErrorCode; error?: string; message: string }> = {
  not_found: { code: "credential_not_found", error: "CredentialNotFound", message: "This wallet holds no rental credential for the listing; rent it first." },
  expired: { code: "credential_expired", message: "The subscription has expired; renew it with renewSubscription." },
  low_balance: { code: "insufficient_balance", error: "InsufficientBalance", message: "The per-task balance does not cover one run at the listing's current price; top it up with topUpBalance." },
  // The contract reports a balance whose withdrawal was requested as LowBalance too: it admits no new run.
  withdrawal_requested: { code: "insufficient_balance", error: "InsufficientBalance", message: "A withdrawal of this per-task balance was requested (requestBalanceWithdrawal): no new run is admitted on it. A top-up (topUpBalance) cancels the request." },
  revoked: { code: "credential_revoked", error: "CredentialRevoked", message: "The creator revoked this credential; an unspent per-task balance can be withdrawn with withdrawUnspentBalance." },
  listing_closed: { code: "listing_closed", error: "ListingNotActive", message: "The listing is closed; its credentials are no longer valid." },
};

/**
 * A per-task run is admitted only at a price the renter agreed to: the listing's current price may not be
 * above the price the balance was last deposited at (docs/design/decisions/0059). The contract would
 * charge no more than the deposit price anyway; refusing here keeps the creator from being paid less than
 * the price the run was admitted at, and tells the renter why.
 */
function checkPriceConsent(priceWei: bigint, balance: ReadPerQueryBalanceReturnType, currency: Currency): void {
  if (priceWei <= balance.depositPriceWei) return;
  throw new ApiError(
    "price_not_agreed",
    `The listing's price per task is now ${amountText(priceWei, currency)}, above the ${amountText(balance.depositPriceWei, currency)} your balance was deposited at. Top it up at the new price (topUpBalance) to agree to it, or take the balance back (requestBalanceWithdrawal, then withdrawUnspentBalance).`,
  );
}

/** "1000 wei (0.000000000000001 ETH)", or "0.25 USDC (250000 units)". */
function amountText(amount: bigint, currency: Currency): string {
  return currency.address === null ? `${amount} wei (${formatEther(amount)} ETH)` : `${formatAmount(amount, currency)} (${amount} units)`;
}

/** The live reads of a listing on `market`: its credential for the wallet, its state, and the per-task
 * balance (the three calls travel as one batched request). */
function readLive(services: Services, market: Market, onChainId: `0x${string}`, wallet: Address) {
  return Promise.all([
    readChainCredential(services.chain, onChainId, wallet, market),
    readListing(services.chain, { listingId: onChainId, market }).catch((error: unknown) => {
      throw new ApiError("service_unavailable", "The chain could not be reached to check the listing; retry.", { cause: error });
    }),
    readPerQueryBalance(services.chain, { listingId: onChainId, buyer: wallet, market }).catch((error: unknown) => {
      throw new ApiError("service_unavailable", "The chain could not be reached to check the balance; retry.", { cause: error });
    }),
  ]);
}

export async function checkExecutionAccess(services: Services, wallet: Address, agentId: string): Promise<ExecutionAccess> {
  const onChainId = await resolveAgentId(services, agentId);
  // The index says whether the listing is published and which contract holds it; the chain, read live
  // from that contract, says its state, its price, the caller's credential and, for a per-task rental,
  // the price the renter deposited at and whether a withdrawal is pending. A listing's contract once
  // seen is kept (it never moves), so the chain reads then travel beside the index's.
  const index = Promise.all([getAgent(services.tables, onChainId), getChainListing(services.tables, onChainId)]);
  const kept = knownMarket(services, onChainId);
  const market: Market = kept ?? (rememberMarket(services.tables, onChainId, (await index)[1]) ?? marketOfListing(null));
  // The renter's charge cap on the listing, read beside the balance (in the same batch).
  const chargeCap = checkChargeCap(services, onChainId, wallet, market);
  const [[stored, chain], [credential, live, perQuery]] = await Promise.all([index, readLive(services, market, onChainId, wallet)]);
  const agent = stored as ExecutionAccess["agent"] | null;
  const row = chain ?? undefined;
  if (!agent || !isPublished(agent, row)) throw new ApiError("listing_not_found", `No published listing ${agentId}.`);
  const contract = contractOf(market);
  if (live.status === LISTING_PAUSED) throw new ApiError("listing_paused", "The listing is paused by its creator; no executions until it resumes.", { onChainError: { contract, error: "ListingNotActive" } });
  if (credential.status !== "active") {
    const pendingWithdrawal = credential.status === "low_balance" && credential.rentalModel === "per_query" && perQuery.withdrawalRequested;
    const refusal = refusals[pendingWithdrawal ? "withdrawal_requested" : credential.status]!;
    throw new ApiError(refusal.code, refusal.message, refusal.error ? { onChainError: { contract, error: refusal.error } } : {});
  }
  const currency = currencyOfRecord(row);
  if (credential.rentalModel === "per_query") checkPriceConsent(live.priceWei, perQuery, currency);
  const capped = credential.rentalModel === "per_query" && (await chargeCap)(live.priceWei) !== null;
  return {
    listingId: agent.listing_id,
    onChainId,
    agent,
    rentalModel: credential.rentalModel,
    market,
    currency,
    priceWei: live.priceWei,
    balanceWei: credential.balanceWei,
    capped,
  };
}
