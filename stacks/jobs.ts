// The background jobs: one function per job of src/job-triggers.ts (the list the local stack and the
// tests run too), `functions/<name>.handler`, on its schedule or subscribed to its queue. What differs
// per job in the cloud (its component name, timeout, retries) is below, keyed by the same names, so a
// job added to the list does not type-check here until it is deployed.
import { JOB_NAMES, JOB_TRIGGERS, rateExpression, type JobName, type QueueJobName, type ScheduledJobName } from "../src/job-triggers.ts";
import { appFunction, type AppResources } from "./common";

/** The registration worker must finish well inside the queue's visibility timeout (60 s). */
const QUEUE_WORKER_TIMEOUT = "30 seconds";

type FunctionOverrides = Parameters<typeof appFunction>[2];

const SCHEDULED: Record<ScheduledJobName, { component: string; function: FunctionOverrides; authority?: true }> = {
  indexer: {
    component: "ChainIndexer",
    // Finish before the next tick starts another pass; a failed pass is retried by the next tick,
    // from the same cursor.
    function: { timeout: "55 seconds", retries: 0 },
  },
  "registration-sweeper": {
    component: "RegistrationSweeper",
    // The next tick is the retry.
    function: { timeout: "60 seconds", retries: 0 },
  },
  alerts: {
    component: "AlertDelivery",
    // A pass delivers what is due and schedules retries; the next tick is its retry.
    function: { timeout: "60 seconds", retries: 0 },
  },
  settler: {
    component: "Settler",
    // Each invocation runs for up to 15 minutes, taking charges until its deadline less the time it
    // keeps to wind down; the minute's schedule starts the next one, which takes the key's lease over
    // as the holder gives it up (a holder that dies is replaced once its lease expires). Two may run at
    // once (the holder and its successor): the lease, not the concurrency, keeps one sender.
    function: { timeout: "15 minutes", retries: 0, memory: "512 MB", concurrency: { reserved: 2 } },
    authority: true,
  },
};

const QUEUED: Record<QueueJobName, FunctionOverrides> = {
  "registration-worker": {
    timeout: QUEUE_WORKER_TIMEOUT,
    // The manifest's pattern check runs recheck in a worker thread that loads it from disk, which a
    // bundle does not carry: the package is installed beside the handler.
    nodejs: { install: ["recheck"] },
  },
  // A message that failed on every delivery lands in the dead-letter queue; its consumer fails the
  // job with an error, so no job stays queued.
  "registration-dlq": { timeout: QUEUE_WORKER_TIMEOUT },
};

export function createJobs(r: AppResources) {
  const queues = { registration: r.registrationQueue, "registration-dlq": r.registrationDlq };
  const created: Partial<Record<JobName, unknown>> = {};
  for (const name of JOB_NAMES) {
    const handler = `functions/${name}.handler`;
    const trigger = JOB_TRIGGERS[name];
    if (trigger.kind === "schedule") {
      const job = SCHEDULED[name as ScheduledJobName];
      // Only the settler is given the protocol authority's key.
      created[name] = new sst.aws.Cron(job.component, { schedule: rateExpression(trigger), function: appFunction(handler, r, job.function, job.authority ? [r.authoritySecret] : []) });
    } else {
      // Batches of up to 10; the handler returns {batchItemFailures}, so one bad message does not send
      // the whole batch back to the queue.
      created[name] = queues[trigger.queue].subscribe(appFunction(handler, r, QUEUED[name as QueueJobName]), { batch: { size: 10, partialResponses: true } });
    }
  }
  return created;
}
