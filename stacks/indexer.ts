// The chain indexer: follows the marketplace contract's events into the local credential and
// listing index, from the cursor kept in the `meta` table.
import { appFunction, type AppResources } from "./common";

export function createIndexer(r: AppResources) {
  return new sst.aws.Cron("ChainIndexer", {
    schedule: "rate(1 minute)",
    function: appFunction("functions/indexer.handler", r, {
      // Finish before the next tick starts another pass.
      timeout: "55 seconds",
      // A failed pass is retried by the next tick, from the same cursor.
      retries: 0,
    }),
  });
}
