// Lambda entry point of the registration sweeper (every 5 minutes): re-enqueues jobs whose message was
// lost. The job is declared in src/jobs.ts.
import { bootServices } from "../src/boot.ts";
import { lambdaJob } from "../src/jobs.ts";

export const handler = lambdaJob("registration-sweeper", bootServices());
