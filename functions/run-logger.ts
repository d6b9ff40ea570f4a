// Lambda entry point of the run logger (every minute): finishes stale runs, resolves deferred
// per-query charges, then logs finished runs' receipts on-chain as Merkle batches. The job is
// declared in src/jobs.ts.
import { bootServices } from "../src/boot.ts";
import { lambdaJob } from "../src/jobs.ts";

export const handler = lambdaJob("run-logger", bootServices());
