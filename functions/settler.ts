// Lambda entry point of the settler (started every minute; each invocation runs until its deadline, the
// next one taking over the authority key's lease as it ends): sends the per-query charges of the
// settlement queue in one batch per block and the run log's batches, and resolves deferred charges. The
// job is declared in src/jobs.ts; only this function is given the protocol authority's key.
import { bootServices } from "../src/boot.ts";
import { lambdaJob } from "../src/jobs.ts";

export const handler = lambdaJob("settler", bootServices());
