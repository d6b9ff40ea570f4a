// The chain indexers through reorganisations (docs/design/indexer.md#reorganisations, decision 0200).
// Each range an indexer applies above the finality depth is journaled: the items it writes, as they were
// before (written ahead of the writes), and the hash of its last block, read before its logs. Each round
// first checks the newest journaled range's last block against the chain: a changed hash or a lower head
// means blocks it indexed left the chain. The fork is then the newest range whose last block is still on
// the chain; the ranges after it are undone (their items written back as they were) and the cursor goes
// back to the block after it, so the round indexes the new chain's blocks from there.
import type { Tables } from "../adapters/tables/dynamo.ts";
import { dropJournalRanges, listJournalRanges, openJournalRange, restoreJournalRanges, type JournalRange, type RangeRecorder } from "../adapters/tables/undo-journal.ts";
import type { ChainClient } from "../chain/client.ts";
import type { Logger } from "../logger.ts";

export interface IndexerJournal {
  tables: Tables;
  chain: ChainClient;
  logger: Logger;
  /** The journal's name: the indexer and its deployment (a fresh chain starts a fresh journal). */
  name: string;
  /** Blocks under the head at which a block is final: ranges ending deeper are not journaled, and are
   * dropped from the journal. 0: nothing is journaled. */
  finalityDepth: number;
}

/** What a rewind did: the block indexing goes on from, the items written back and the ranges undone. */
export interface Rewind {
  resumeAt: bigint;
  restored: number;
  ranges: number;
  /** No journaled range is still on the chain: the reorganisation went deeper than the journal. */
  deep: boolean;
}

/** The hash of block `n` now, or undefined when the head is below it. */
async function hashAt(chain: ChainClient, n: bigint, head: bigint): Promise<string | undefined> {
  if (n > head) return undefined;
  return (await chain.client.getBlock({ blockNumber: n })).hash;
}

/**
 * Undoes what the indexer applied from blocks that left the chain, if any: returns where to index from,
 * or null when every journaled range is still on the chain. The caller moves its cursor there, then
 * calls `done` (the undone ranges leave the journal only after the cursor moved: a round that stops in
 * between undoes them again, which writes the same images).
 */
export async function rewindIfReorganised(journal: IndexerJournal): Promise<(Rewind & { done(): Promise<void> }) | null> {
  if (journal.finalityDepth <= 0) return null;
  const ranges = await listJournalRanges(journal.tables, journal.name);
  const closed = ranges.filter((range) => range.to !== undefined).sort((a, b) => (a.to! > b.to! ? -1 : 1));
  if (closed.length === 0) return null;
  const head = await journal.chain.client.getBlockNumber({ cacheTime: 0 });
  const newest = closed[0]!;
  if ((await hashAt(journal.chain, newest.to!, head)) === newest.hash) {
    // Ranges now final leave the journal (the newest stays: it is what the next round checks).
    const final = closed.slice(1).filter((range) => range.to! <= head - BigInt(journal.finalityDepth));
    if (final.length > 0) await dropJournalRanges(journal.tables, journal.name, final);
    return null;
  }
  let fork: JournalRange | undefined;
  for (const range of closed.slice(1)) {
    if ((await hashAt(journal.chain, range.to!, head)) === range.hash) {
      fork = range;
      break;
    }
  }
  const undone = ranges.filter((range) => !fork || range.from > fork.to!);
  const restored = await restoreJournalRanges(journal.tables, undone);
  const resumeAt = fork ? fork.to! + 1n : undone.reduce((min, range) => (range.from < min ? range.from : min), undone[0]!.from);
  const rewind = { resumeAt, restored, ranges: undone.length, deep: fork === undefined };
  const fields = { journal: journal.name, head: head.toString(), resume_at: resumeAt.toString(), ranges: undone.length, restored };
  if (rewind.deep) journal.logger.error("index rolled back past every journaled range: a reorganisation deeper than the finality depth; blocks before are not checked", fields);
  else journal.logger.warn("index rolled back after a reorganisation", fields);
  return { ...rewind, done: () => dropJournalRanges(journal.tables, journal.name, undone) };
}

/**
 * The recorder of the range [from, to] when it is not final (`to` above the finality depth under
 * `head`), or null when it need not be journaled. Reads the hash of `to` first: read before the range's
 * logs, a reorganisation while they are read shows at the next round.
 */
export async function journalRange(journal: IndexerJournal, from: bigint, to: bigint, head: bigint): Promise<{ recorder: RangeRecorder; hash: string } | null> {
  if (journal.finalityDepth <= 0 || to <= head - BigInt(journal.finalityDepth)) return null;
  const hash = (await journal.chain.client.getBlock({ blockNumber: to })).hash;
  return { recorder: await openJournalRange(journal.tables, journal.name, from), hash };
}
