// What the steps of a run-log pass share: the services, the authority that sends, and the turn-taking
// of that authority's sends, owned by the run log that started the pass (pass.ts).
import type { AuthoritySigner } from "../../chain/authority.ts";
import type { Services } from "../services.ts";

export interface RunLogContext {
  services: Services;
  authority: AuthoritySigner;
  /** Runs `send` after every earlier send of this run log has settled: one batch at a time, so a
   * process's batches never race each other for the authority's nonces. */
  sendInTurn<T>(send: () => Promise<T>): Promise<T>;
}

/** Updates in flight at once while claiming and completing runs. */
export const CONCURRENCY = 16;

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `run` over `items` with at most `limit` calls in flight; results in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await run(items[index]!, index);
      }
    }),
  );
  return results;
}
