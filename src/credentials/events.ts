// Turns the marketplaces' event logs into state patches for the credentials index: the ETH Marketplace's
// and the TokenMarketplace's, which emits the same events (a token listing's amounts in its token's
// units) and announces its listings with TokenListingCreated, naming the token. Every event
// carries absolute values (balance after, expiry after), so a patch never depends on a previous read,
// and the events of one key fold into one patch in log order.
import { parseEventLogs, type Log } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import type { ListingPatch } from "../listings/chain-listing.ts";
import { rentalModelOf, type RentalModel } from "@agent-rental/core/vocabulary";

/** Position of a log on the chain, totally ordered: block number then log index. */
export function logPosition(blockNumber: bigint, logIndex: number): string {
  return `${blockNumber.toString().padStart(12, "0")}:${String(logIndex).padStart(6, "0")}`;
}

export interface CredentialPatch {
  kind: "credential";
  listingId: `0x${string}`;
  wallet: `0x${string}`;
  position: string;
  set: Partial<{
    rental_model: RentalModel;
    purchased_block: string;
    expires_at: number | null;
    balance_wei: string;
    revoked: boolean;
    /** The renter asked to withdraw the per-task balance; a top-up or the withdrawal clears it. */
    withdrawal_requested: boolean;
  }>;
}

export type Patch = CredentialPatch | ListingPatch;

/** Both marketplaces' events: the Marketplace's, and the TokenMarketplace's own listing event. */
const tokenListingCreated = tokenMarketplaceAbi.filter((item): item is Extract<(typeof tokenMarketplaceAbi)[number], { type: "event"; name: "TokenListingCreated" }> => item.type === "event" && item.name === "TokenListingCreated");
const eventsAbi = [...marketplaceAbi, ...tokenListingCreated];

/** Decodes the marketplaces' logs (others are ignored) into patches, one per state-changing event. */
export function patchesFromLogs(logs: Log[]): Patch[] {
  const patches: Patch[] = [];
  for (const event of parseEventLogs({ abi: eventsAbi, logs, strict: true })) {
    const position = logPosition(event.blockNumber!, event.logIndex!);
    // A purchase's time: the log's block timestamp where the node reports it (Hardhat, recent geth),
    // else its block number, resolved to a time by the indexer.
    const stamp = (event as { blockTimestamp?: bigint | null }).blockTimestamp;
    const block = typeof stamp === "bigint" ? `t${stamp.toString()}` : event.blockNumber!.toString();
    const credential = (listingId: `0x${string}`, wallet: `0x${string}`, set: CredentialPatch["set"]) =>
      patches.push({ kind: "credential", listingId, wallet: wallet.toLowerCase() as `0x${string}`, position, set });
    const listing = (listingId: `0x${string}`, set: ListingPatch["set"]) => patches.push({ kind: "listing", listingId, position, set });
    switch (event.eventName) {
      case "ListingCreated":
        listing(event.args.listingId, {
          creator: event.args.creator.toLowerCase(),
          rental_model: rentalModelOf(event.args.accessType),
          price_wei: event.args.price.toString(),
          metadata_uri: event.args.metadataUri,
          status: "active",
          created_block: event.blockNumber!.toString(),
        });
        break;
      case "TokenListingCreated":
        // The price is in the token's smallest units (the record's price_wei names the listing's smallest
        // unit, wei for ETH; decision 0165).
        listing(event.args.listingId, {
          creator: event.args.creator.toLowerCase(),
          rental_model: rentalModelOf(event.args.accessType),
          price_wei: event.args.price.toString(),
          token: event.args.token.toLowerCase(),
          metadata_uri: event.args.metadataUri,
          status: "active",
          created_block: event.blockNumber!.toString(),
        });
        break;
      case "ListingUpdated":
        listing(event.args.listingId, { price_wei: event.args.price.toString(), metadata_uri: event.args.metadataUri });
        break;
      case "ListingActiveSet":
        listing(event.args.listingId, { status: event.args.active ? "active" : "paused" });
        break;
      case "ListingClosed":
        listing(event.args.listingId, { status: "closed" });
        break;
      case "OneTimePurchased":
        credential(event.args.listingId, event.args.buyer, { rental_model: "one_time", purchased_block: block, expires_at: null, revoked: false });
        break;
      case "SubscriptionPurchased":
        credential(event.args.listingId, event.args.buyer, { rental_model: "subscription", purchased_block: block, expires_at: Number(event.args.expiresAt), revoked: false });
        break;
      case "SubscriptionRenewed":
        credential(event.args.listingId, event.args.buyer, { expires_at: Number(event.args.expiresAt) });
        break;
      case "PerQueryPurchased":
        credential(event.args.listingId, event.args.buyer, { rental_model: "per_query", purchased_block: block, balance_wei: event.args.deposit.toString(), revoked: false });
        break;
      case "BalanceToppedUp":
        // A top-up cancels a pending withdrawal request.
        credential(event.args.listingId, event.args.buyer, { balance_wei: event.args.newBalance.toString(), withdrawal_requested: false });
        break;
      case "BalanceWithdrawalRequested":
        credential(event.args.listingId, event.args.buyer, { withdrawal_requested: true });
        break;
      case "QueryConsumed":
        credential(event.args.listingId, event.args.buyer, { balance_wei: event.args.newBalance.toString() });
        break;
      case "UnspentBalanceWithdrawn":
        credential(event.args.listingId, event.args.buyer, { balance_wei: "0", withdrawal_requested: false });
        break;
      case "AccessRevoked":
        credential(event.args.listingId, event.args.buyer, { revoked: true });
        break;
      default:
        break;
    }
  }
  return patches;
}

/** Folds patches of the same key into one, in order; the result carries the last position. */
export function foldPatches(patches: Patch[]): Patch[] {
  const byKey = new Map<string, Patch>();
  for (const patch of patches) {
    const key = patch.kind === "credential" ? `c:${patch.listingId}:${patch.wallet}` : `l:${patch.listingId}`;
    const previous = byKey.get(key);
    if (!previous) byKey.set(key, { ...patch, set: { ...patch.set } } as Patch);
    else {
      previous.position = patch.position;
      Object.assign(previous.set, patch.set);
    }
  }
  return [...byKey.values()];
}
