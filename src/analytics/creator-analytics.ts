// A creator's analytics: the figures of its own listings (all of them, or one), with the reconciliation
// of the roll-ups against the chain, per currency (decision 0255): an ETH listing's amounts against the
// Marketplace, a token listing's against the TokenMarketplace. Another creator's listing is as unknown as
// one that does not exist.
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { parseListingId } from "../listings/ids.ts";
import { getAgent, listAgentsOfCreator } from "../listings/listing.store.ts";
import { getListingsErc8004 } from "../erc8004/erc8004.store.ts";
import { getChainFactsCursor } from "../credentials/cursor.store.ts";
import { readEarnings } from "../chain/read-earnings.ts";
import { getLifetime } from "./rollup.store.ts";
import { creatorRenterCount } from "./creator-renters.ts";
import { getChainListings } from "../listings/chain-listing.store.ts";
import { ETH, type Currency } from "../listings/currency.ts";
import { currencyOfRecord } from "../listings/catalogue.ts";
import { checkRange, currencyGroups, figuresOf, readAnalytics, AnalyticsRangeError, type Analytics, type AnalyticsListing, type Range } from "./figures.ts";

export interface ListingSummary {
  listing_id: string;
  name: string;
  rating: number | null;
  review_count: number;
}

/** Whether the roll-ups' money reconciles with the contract at one block (amounts in one currency). */
export interface Reconciliation {
  /** The last block the analytics counted (the roll-ups include every money event up to it; the count
   * follows final blocks, at the network's finality depth under the head). */
  block: bigint | null;
  /** The listings' escrow on-chain at `block`, and as the roll-ups compute it (net revenue − withdrawn). */
  chain_escrow_wei: bigint | null;
  rollup_escrow_wei: bigint;
  withdrawable_wei: bigint | null;
  vesting_wei: bigint | null;
  matches: boolean;
}

/** The reconciliation of the ETH listings (`_wei`), `matches` only when every currency's matches, and
 * each currency's. */
export type CreatorReconciliation = Reconciliation & { by_currency: (Reconciliation & { currency: Currency })[] };

export type CreatorAnalytics = Analytics & {
  listings: (ListingSummary & { currency: Currency })[];
  reconciliation: CreatorReconciliation;
  currency: "ETH";
  balances_outstanding_wei: bigint;
  balances_outstanding_by_currency: { currency: Currency; amount: bigint }[];
};

/** The creator's listings (on-chain ids and names), or just `listingParam` when it is one of them. */
async function listingsOf(services: Pick<Services, "tables">, wallet: string, listingParam?: string): Promise<{ onChainId: `0x${string}`; name: string }[]> {
  const creator = wallet.toLowerCase();
  if (listingParam !== undefined) {
    const onChainId = parseListingId(listingParam);
    const agent = await getAgent(services.tables, onChainId);
    // Another creator's listing reads as no listing at all: nothing about it is told.
    if (!agent || agent.creator.toLowerCase() !== creator) throw new ApiError("listing_not_found", "No such listing among yours.");
    return [{ onChainId, name: agent.name }];
  }
  const agents = await listAgentsOfCreator(services.tables, creator);
  return agents.filter((agent) => agent.creator.toLowerCase() === creator).map((agent) => ({ onChainId: parseListingId(agent.listing_id), name: agent.name }));
}

/** The currency each listing's amounts are in, from the chain index (a listing not indexed yet has no
 * amounts counted: ETH). */
async function withCurrencies(services: Pick<Services, "tables">, listings: { onChainId: `0x${string}`; name: string }[]): Promise<(AnalyticsListing & { name: string })[]> {
  const rows = await getChainListings(services.tables, listings.map((l) => l.onChainId));
  return listings.map((l) => {
    const row = rows.get(l.onChainId.toLowerCase());
    return { id: l.onChainId, name: l.name, currency: row ? currencyOfRecord(row) : ETH };
  });
}

/** From one currency's listings' lifetime items: the roll-ups' escrow (net revenue − withdrawn) and the
 * per_query balances renters hold (deposits − charges − refunds), all time. */
async function lifetimeMoney(services: Pick<Services, "tables">, onChainIds: string[]): Promise<{ escrow: bigint; balances: bigint }> {
  const items = await Promise.all(onChainIds.map((id) => getLifetime(services.tables, id)));
  let escrow = 0n;
  let balances = 0n;
  for (const item of items) {
    if (!item) continue;
    const f = figuresOf("all", new Map(Object.entries(item).filter((e): e is [string, bigint] => typeof e[1] === "bigint")));
    escrow += f.revenue.net_wei - f.revenue.withdrawn_wei;
    balances += f.rentals.balance_change_wei;
  }
  return { escrow, balances };
}

/** Compares the roll-ups of one currency's listings with their contract at the last block the analytics counted. */
export async function reconcile(services: Pick<Services, "tables" | "chain" | "config">, onChainIds: `0x${string}`[], rollup: bigint, currency: Currency = ETH): Promise<Reconciliation> {
  const next = await getChainFactsCursor(services.tables, services.chain.marketplace, services.config.MARKETPLACE_DEPLOY_BLOCK);
  if (next === null || next === 0n) return { block: null, chain_escrow_wei: null, rollup_escrow_wei: rollup, withdrawable_wei: null, vesting_wei: null, matches: false };
  const block = next - 1n;
  try {
    const reads = await Promise.all(onChainIds.map((listingId) => readEarnings(services.chain, { listingId, blockNumber: block, market: currency.address === null ? "eth" : "token" })));
    const sum = (pick: (r: (typeof reads)[number]) => bigint) => reads.reduce((total, r) => total + pick(r), 0n);
    const escrow = sum((r) => r.escrowWei);
    return { block, chain_escrow_wei: escrow, rollup_escrow_wei: rollup, withdrawable_wei: sum((r) => r.withdrawableWei), vesting_wei: sum((r) => r.vestingWei), matches: escrow === rollup };
  } catch {
    // The chain did not answer: the figures are still shown, unreconciled.
    return { block, chain_escrow_wei: null, rollup_escrow_wei: rollup, withdrawable_wei: null, vesting_wei: null, matches: false };
  }
}

/** The analytics of the caller's listings (or of one, `listingParam`) over `range`. */
export async function creatorAnalytics(services: Pick<Services, "tables" | "chain" | "config">, wallet: string, range: Range, listingParam?: string): Promise<CreatorAnalytics> {
  try {
    checkRange(range);
  } catch (error) {
    if (error instanceof AnalyticsRangeError) throw new ApiError("invalid_request", error.message);
    throw error;
  }
  const listings = await withCurrencies(services, await listingsOf(services, wallet, listingParam));
  const ids = listings.map((l) => l.id as `0x${string}`);
  // Each currency's money, reconciled with its contract; the ETH group is always there (empty: zeros).
  const groups = currencyGroups(listings);
  if (!groups.some((g) => g.currency.address === null)) groups.unshift({ currency: ETH, ids: [] });
  const money = Promise.all(
    groups.map(async (g) => {
      const lifetime = await lifetimeMoney(services, g.ids);
      return { currency: g.currency, balances: lifetime.balances, reconciliation: await reconcile(services, g.ids as `0x${string}`[], lifetime.escrow, g.currency) };
    }),
  );
  const [analytics, byCurrency, reputation, creatorRenters] = await Promise.all([
    readAnalytics(services.tables, listings, range),
    money,
    getListingsErc8004(services.tables, ids),
    // Across all of the creator's listings a wallet is one renter however many it rents (decision 0211).
    listingParam === undefined ? creatorRenterCount(services.tables, wallet) : Promise.resolve(null),
  ]);
  const eth = byCurrency[0]!;
  const listed = new Set(listings.map((l) => l.currency.address?.toLowerCase() ?? "eth"));
  const shown = byCurrency.filter((m) => listed.has(m.currency.address?.toLowerCase() ?? "eth"));
  return {
    currency: "ETH",
    listings: listings.map((l) => {
      const r = reputation.get(l.id.toLowerCase());
      return { listing_id: `lst_${l.id.slice(2)}`, name: l.name, currency: l.currency, rating: r?.review_count ? (r.rating ?? null) : null, review_count: r?.review_count ?? 0 };
    }),
    ...analytics,
    ...(creatorRenters === null ? {} : { renter_count: creatorRenters }),
    balances_outstanding_wei: eth.balances,
    balances_outstanding_by_currency: shown.map((m) => ({ currency: m.currency, amount: m.balances })),
    reconciliation: { ...eth.reconciliation, matches: byCurrency.every((m) => m.reconciliation.matches), by_currency: shown.map((m) => ({ currency: m.currency, ...m.reconciliation })) },
  };
}
