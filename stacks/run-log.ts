// The run logger: every minute, the receipts of finished runs are logged on-chain as one Merkle root
// per batch (logRuns, sent by the protocol authority whose key is the AuthorityPrivateKey secret).
import { appFunction, type AppResources } from "./common";

export function createRunLogger(r: AppResources) {
  return new sst.aws.Cron("RunLogger", {
    schedule: "rate(1 minute)",
    function: appFunction("functions/run-logger.handler", r, {
      // One pass per tick; passes that do overlap are safe (each run is claimed by one of them).
      timeout: "60 seconds",
      // The next tick is the retry; runs left pending or claimed are picked up by it.
      retries: 0,
    }),
  });
}
