// Lambda entry point of the registration queue's consumer (SQS batches, partial batch responses). The
// job is declared in src/jobs.ts.
import { bootServices } from "../src/boot.ts";
import { lambdaJob } from "../src/jobs.ts";

export const handler = lambdaJob("registration-worker", bootServices());
