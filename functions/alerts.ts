// Lambda entry point of the alert delivery (every minute): delivers the renters' alerts to their
// webhooks and schedules retries. The job is declared in src/jobs.ts.
import { bootServices } from "../src/boot.ts";
import { lambdaJob } from "../src/jobs.ts";

export const handler = lambdaJob("alerts", bootServices());
