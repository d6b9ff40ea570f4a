// Lambda entry point of the chain indexer (scheduled every minute): catches the credentials index up
// with the chain, within the invocation's time budget. The job is declared in src/jobs.ts.
import { bootServices } from "../src/boot.ts";
import { lambdaJob } from "../src/jobs.ts";

export const handler = lambdaJob("indexer", bootServices());
