// A renter's runs of a listing, newest first, a page at a time (GET /v1/runs): the run history the
// dashboard's rentals and the CLI list, from which a renter reads a run again or rates it. Read from the
// index of a renter's runs of a listing (run.store.ts, written at admission for every way in), each
// entry's run record read with it; a record of another wallet, or a barred run id, is left out.
import type { Tables } from "../../adapters/tables/dynamo.ts";
import { ApiError } from "../../errors.ts";
import { parseListingId, toListingId } from "../../listings/ids.ts";
import type { RunRecord } from "./run.ts";
import { getRuns, listRenterRuns } from "./run.store.ts";

// Page sizes as the specification gives its lists (default 20, at most 100).
export const RUNS_PAGE_DEFAULT = 20;
export const RUNS_PAGE_MAX = 100;
/** Index reads one page may take at most (entries whose record is missing are skipped). */
const MAX_READS = 10;
/** An entry's sort key: `<created_at>#<run id>`. */
const SORT_KEY = /^\d{4}-\d{2}-\d{2}T[0-9:.]{1,20}Z#run_[0-9a-f]{32}$/;

export interface RunPage {
  listing_id: string;
  runs: RunRecord[];
  next_cursor: string | null;
}

/**
 * The runs `wallet` made of a listing, newest first. Errors: 400 invalid_listing_id (a malformed id),
 * 400 invalid_request (a cursor this listing's pages did not give). A listing the wallet never ran (or
 * that does not exist) has no runs: its page is empty, as for any wallet.
 */
export async function listOwnRuns(tables: Tables, wallet: string, listingIdParam: string, query: { limit: number; cursor?: string | undefined }): Promise<RunPage> {
  const onChainId = parseListingId(listingIdParam);
  let after: string | undefined;
  if (query.cursor !== undefined) {
    after = Buffer.from(query.cursor, "base64url").toString("utf8");
    if (!SORT_KEY.test(after)) throw new ApiError("invalid_request", "Invalid query: cursor: not a next_cursor of this list.");
  }
  const owner = wallet.toLowerCase();
  const runs: RunRecord[] = [];
  let next: string | null = null;
  for (let reads = 0; reads < MAX_READS && runs.length < query.limit; reads++) {
    const page = await listRenterRuns(tables, onChainId, owner, { limit: query.limit - runs.length, ...(after ? { after } : {}) });
    const records = await getRuns(tables, page.entries.map((entry) => entry.run_id));
    for (const entry of page.entries) {
      const record = records.get(entry.run_id);
      if (record && record.wallet === owner) runs.push(record);
    }
    next = page.next;
    if (!page.next) break;
    after = page.next;
  }
  return { listing_id: toListingId(onChainId), runs, next_cursor: next ? Buffer.from(next, "utf8").toString("base64url") : null };
}
