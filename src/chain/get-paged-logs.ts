// A log read over a block range, in pages: each page is bounded in time (a read the node never answers is
// abandoned and tried again) and in size (a page whose read fails, an answer too large to take or too slow
// to come, is split in halves down to one block). Charge events come up to some 830 a block, about half a
// megabyte of logs, so a read from a deployment block on a busy chain would pass the 10 MB a JSON-RPC
// answer may have; pages of PAGE_BLOCKS keep each answer far under it where blocks are sparse, and the
// halving finds the size where they are not. The error of the last attempt is the transport's own.

/** Blocks one page covers at first. */
export const PAGE_BLOCKS = 2_000n;

export interface PagedLogsOptions {
  /** Blocks a page covers at first (default PAGE_BLOCKS). */
  pageBlocks?: bigint;
  /** How long one read may take before it is abandoned, in milliseconds (default 15 s). */
  timeoutMs?: number;
  /** Failures in a row (no answer, a timeout, an error of a one-block page) before the last one is
   * thrown (default 3). */
  attempts?: number;
}

/** The read of one page did not answer in time. */
export class LogReadTimeoutError extends Error {
  constructor(fromBlock: bigint, toBlock: bigint, timeoutMs: number) {
    super(`eth_getLogs for blocks ${fromBlock} to ${toBlock} did not answer within ${timeoutMs} ms`);
    this.name = "LogReadTimeoutError";
  }
}

/** Whether the node (or the transport) refused an answer for its size or the range's. */
function tooLarge(error: unknown): boolean {
  for (let e: unknown = error, i = 0; e && i < 6; e = (e as { cause?: unknown }).cause, i++) {
    const text = `${(e as Error).message ?? ""} ${String((e as { details?: unknown }).details ?? "")}`;
    if (/too large|too big|exceed|size limit|response size|query returned more than|block range|10 ?MB/i.test(text)) return true;
  }
  return false;
}

async function within<T>(read: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The logs `read` returns for [fromBlock, toBlock], read page by page in block order.
 *
 * @example
 * const logs = await getPagedLogs(0n, head, (from, to) => client.getLogs({ address, fromBlock: from, toBlock: to }));
 */
export async function getPagedLogs<T>(fromBlock: bigint, toBlock: bigint, read: (from: bigint, to: bigint) => Promise<T[]>, options: PagedLogsOptions = {}): Promise<T[]> {
  const pageBlocks = options.pageBlocks ?? PAGE_BLOCKS;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const attempts = options.attempts ?? 3;
  const found: T[] = [];
  /** Failures since the last read that answered: a node that does not answer is given up on. */
  let failures = 0;
  const readRange = async (from: bigint, to: bigint): Promise<void> => {
    for (;;) {
      try {
        found.push(...(await within(read(from, to), timeoutMs, () => new LogReadTimeoutError(from, to, timeoutMs))));
        failures = 0;
        return;
      } catch (error) {
        // An answer refused for its size is no sign of a node in trouble: only the other failures count.
        if (!(to > from && tooLarge(error)) && ++failures >= attempts) throw error;
        if (to > from) {
          // Too large or too slow as one read: its halves.
          const middle = from + (to - from) / 2n;
          await readRange(from, middle);
          await readRange(middle + 1n, to);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** (failures - 1)));
      }
    }
  };
  for (let from = fromBlock; from <= toBlock; from += pageBlocks) {
    const to = from + pageBlocks - 1n < toBlock ? from + pageBlocks - 1n : toBlock;
    await readRange(from, to);
  }
  return found;
}
