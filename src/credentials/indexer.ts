// The chain indexer: follows the marketplace's events from a stored cursor into the credentials
// index. It reads only blocks with `confirmations` blocks on top (0 locally), so a reorg shallower
// than that cannot leave a phantom credential; it applies each key's events folded into one
// conditional write; and it advances the cursor only after every write of the range has landed, so a
// crash replays the range, which changes nothing.
// Items are written in two ways: new ones in batches of 25 (the common case when catching up), existing
// ones with one conditional update each. A range above the finality depth is journaled first (the items it
// writes as they were before), so a reorganisation that takes its blocks away is undone and indexed again
// from the new chain (indexer-reorg.ts).
import type { Hex, Log } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { tokenAt, type ChainClient } from "../chain/client.ts";
import type { Logger } from "../logger.ts";
import { foldPatches, patchesFromLogs, type CredentialPatch, type Patch } from "./events.ts";
import { applyCredentialPatch, credentialKey, credentialPositions, putNewCredentials } from "./credential.store.ts";
import { applyChainListingPatch, chainListingKey, chainListingPositions, putNewChainListings } from "../listings/chain-listing.store.ts";
import { journalRange, rewindIfReorganised, type IndexerJournal } from "./indexer-reorg.ts";
import type { ListingPatch } from "../listings/chain-listing.ts";
import { chainFactsCursorName, getIndexerCursor, putIndexerCursor } from "./cursor.store.ts";
import { getMarketplaceLogs } from "../chain/get-marketplace-logs.ts";
import { recordChainLogs } from "../analytics/chain-facts.ts";

export interface IndexerOptions {
  tables: Tables;
  chain: ChainClient;
  logger: Logger;
  /** The block the marketplace was deployed in: where a fresh cursor starts. */
  fromBlock: bigint;
  /** Blocks that must sit on top of a block before it is indexed. */
  confirmations: number;
  /** Blocks per eth_getLogs request. */
  chunkSize?: number;
  /** Writes in flight at once. */
  concurrency?: number;
  /** The network's finality depth: ranges above it are journaled and undone when a reorganisation takes
   * their blocks away (default 0: none). */
  finalityDepth?: number;
}

export interface IndexRound {
  fromBlock: bigint;
  toBlock: bigint;
  events: number;
  writes: number;
  /** True when the cursor reached the confirmed head. */
  caughtUp: boolean;
  /** Set when the round first undid ranges a reorganisation took away: the block it indexed again from. */
  rewoundTo?: bigint;
}

export async function readCursor(options: IndexerOptions): Promise<bigint> {
  return (await getIndexerCursor(options.tables, options.chain.marketplace, options.fromBlock)) ?? options.fromBlock;
}

async function writeCursor(options: IndexerOptions, nextBlock: bigint): Promise<void> {
  await putIndexerCursor(options.tables, options.chain.marketplace, options.fromBlock, nextBlock);
}

async function mapLimit<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** Resolves purchase blocks to ISO timestamps: directly when the log carried its block's timestamp
 * (`t<seconds>`), else by reading the block. */
async function withPurchaseTimes(chain: ChainClient, patches: Patch[]): Promise<Patch[]> {
  const marks = new Set(patches.flatMap((p) => (p.kind === "credential" && p.set.purchased_block ? [p.set.purchased_block] : [])));
  const times = new Map<string, string>();
  for (const mark of marks) if (mark.startsWith("t")) times.set(mark, new Date(Number(mark.slice(1)) * 1000).toISOString());
  const blocks = [...marks].filter((mark) => !mark.startsWith("t"));
  await mapLimit(blocks, 16, async (block) => {
    const header = await chain.client.getBlock({ blockNumber: BigInt(block) });
    times.set(block, new Date(Number(header.timestamp) * 1000).toISOString());
  });
  return patches.map((patch) => {
    if (patch.kind !== "credential" || !patch.set.purchased_block) return patch;
    const { purchased_block, ...rest } = patch.set;
    return { ...patch, set: { ...rest, purchased_at: times.get(purchased_block)! } } as Patch;
  });
}

/** A token listing's currency, named as the service is configured (chain.tokens). */
function withTokens(chain: ChainClient, patches: Patch[]): Patch[] {
  return patches.map((patch) => {
    if (patch.kind !== "listing" || patch.set.token === undefined) return patch;
    const token = tokenAt(chain, patch.set.token);
    return token ? { ...patch, set: { ...patch.set, token_symbol: token.symbol, token_decimals: token.decimals } } : patch;
  });
}

/** The marketplace index's undo journal (one per deployment, as its cursor). */
export function indexerJournal(options: IndexerOptions): IndexerJournal {
  const name = `indexer#${options.chain.marketplace.toLowerCase()}#${options.fromBlock}`;
  return { tables: options.tables, chain: options.chain, logger: options.logger, name, finalityDepth: options.finalityDepth ?? 0 };
}

/**
 * The creator analytics count the money events of both marketplaces (a token listing's amounts stay in
 * its token: the figures add them per currency) once their blocks are final: at the network's finality
 * depth under the head, not at the indexer's confirmations. A purchase, charge or withdrawal in a block a
 * reorganisation takes away is then never counted, while the indexed state (credentials, listings),
 * journaled above that depth, is undone and indexed again. The roll-ups cannot be undone that way: other
 * writers (the settler, the run log) add to the same items meanwhile. The count keeps its own cursor,
 * at most the depth behind the index's; where the two ranges are the same (a depth of 0, locally) the
 * round's logs are counted as read. A deployment indexed before this cursor existed counted up to the
 * index's cursor, so that is where it starts.
 */
async function recordFinalChainFacts(options: IndexerOptions, logs: Log[], from: bigint, to: bigint, head: bigint): Promise<void> {
  const name = chainFactsCursorName(options.chain.marketplace);
  const next = (await getIndexerCursor(options.tables, name, options.fromBlock)) ?? from;
  const final = head - BigInt(options.finalityDepth ?? 0);
  const upTo = final < to ? final : to;
  if (upTo < next) return;
  const factsLogs = next === from && upTo === to ? logs : await getMarketplaceLogs(options.chain, next, upTo);
  await recordChainLogs(options.tables, options.chain, factsLogs);
  await putIndexerCursor(options.tables, name, options.fromBlock, upTo + 1n);
}

/** Indexes the next range of confirmed blocks (after undoing what a reorganisation took away, if any). */
export async function indexOnce(options: IndexerOptions): Promise<IndexRound> {
  const journal = indexerJournal(options);
  const rewind = await rewindIfReorganised(journal);
  if (rewind) {
    await writeCursor(options, rewind.resumeAt);
    await rewind.done();
  }
  const from = await readCursor(options);
  const head = await options.chain.client.getBlockNumber({ cacheTime: 0 });
  const confirmed = head - BigInt(options.confirmations);
  const rewound = rewind ? { rewoundTo: rewind.resumeAt } : {};
  if (from > confirmed) {
    await recordFinalChainFacts(options, [], from, from - 1n, head);
    return { fromBlock: from, toBlock: from - 1n, events: 0, writes: 0, caughtUp: true, ...rewound };
  }
  const to = confirmed < from + BigInt((options.chunkSize ?? 5_000) - 1) ? confirmed : from + BigInt((options.chunkSize ?? 5_000) - 1);
  const journaled = await journalRange(journal, from, to, head);
  const logs = await getMarketplaceLogs(options.chain, from, to);
  const patches = withTokens(options.chain, await withPurchaseTimes(options.chain, foldPatches(patchesFromLogs(logs))));
  // Items that do not exist yet are written in batches; existing ones get a conditional update that
  // never lets an older event overwrite a newer one; items already past these events are skipped.
  const credentials = patches.filter((patch): patch is CredentialPatch => patch.kind === "credential");
  const listings = patches.filter((patch): patch is ListingPatch => patch.kind === "listing");
  if (journaled) {
    await journaled.recorder.capture("credentials", credentials.map((patch) => credentialKey(patch.wallet, patch.listingId)));
    await journaled.recorder.capture("chain_listings", listings.map((patch) => chainListingKey(patch.listingId)));
  }
  const positions = new Map<Patch, string>([...(await credentialPositions(options.tables, credentials)), ...(await chainListingPositions(options.tables, listings))]);
  const fresh = patches.filter((patch) => !positions.has(patch));
  const behind = patches.filter((patch) => positions.has(patch) && positions.get(patch)! < patch.position);
  await putNewCredentials(options.tables, credentials.filter((patch) => !positions.has(patch)));
  await putNewChainListings(options.tables, listings.filter((patch) => !positions.has(patch)));
  let writes = fresh.length;
  await mapLimit(behind, options.concurrency ?? 32, async (patch) => {
    if (await (patch.kind === "credential" ? applyCredentialPatch(options.tables, patch) : applyChainListingPatch(options.tables, patch))) writes++;
  });
  // The creator analytics count the money events of final blocks (below).
  await recordFinalChainFacts(options, logs, from, to, head);
  if (journaled) await journaled.recorder.close(to, journaled.hash);
  await writeCursor(options, to + 1n);
  return { fromBlock: from, toBlock: to, events: logs.length, writes, caughtUp: to === confirmed, ...rewound };
}

/** Indexes until the cursor reaches the confirmed head (or the time budget runs out). */
export async function catchUp(options: IndexerOptions, budgetMs = Number.POSITIVE_INFINITY): Promise<{ rounds: number; events: number }> {
  const deadline = Date.now() + budgetMs;
  let rounds = 0;
  let events = 0;
  for (;;) {
    const round = await indexOnce(options);
    rounds++;
    events += round.events;
    if (round.caughtUp || Date.now() > deadline) return { rounds, events };
  }
}

export type { Hex };
