// Lambda entry point of the registration dead-letter queue's consumer: fails the jobs whose manifest
// could not be processed. The job is declared in src/jobs.ts.
import { bootServices } from "../src/boot.ts";
import { lambdaJob } from "../src/jobs.ts";

export const handler = lambdaJob("registration-dlq", bootServices());
