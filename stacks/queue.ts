// SQS: the registration queue (manifest validation), its dead-letter queue, the worker that
// consumes it and the sweeper that re-drives jobs stuck in `queued`.
import { appFunction, type AppResources } from "./common";

/** A message is retried this many receives before it lands in the dead-letter queue. */
export const REGISTRATION_MAX_RECEIVES = 5;
/** The worker must finish well inside the queue's visibility timeout (60 s). */
const WORKER_TIMEOUT = "30 seconds";

export function createRegistrationQueues() {
  const registrationDlq = new sst.aws.Queue("RegistrationDlq", {
    // Keep failed registrations for the longest SQS allows, for inspection and redrive.
    transform: { queue: { messageRetentionSeconds: 14 * 24 * 60 * 60 } },
  });
  const registrationQueue = new sst.aws.Queue("RegistrationQueue", {
    visibilityTimeout: "60 seconds",
    dlq: { queue: registrationDlq.arn, retry: REGISTRATION_MAX_RECEIVES },
  });
  return { registrationQueue, registrationDlq };
}

export function createRegistrationConsumers(r: AppResources) {
  // Batches of up to 10; the handler returns {batchItemFailures} so one bad manifest does not
  // send the whole batch back to the queue.
  const worker = r.registrationQueue.subscribe(
    appFunction("functions/registration-worker.handler", r, {
      timeout: WORKER_TIMEOUT,
      // The manifest's pattern check runs recheck in a worker thread that loads it from disk, which a
      // bundle does not carry: the package is installed beside the handler.
      nodejs: { install: ["recheck"] },
    }),
    { batch: { size: 10, partialResponses: true } },
  );

  // A message that failed on every delivery lands in the dead-letter queue; its consumer fails the
  // job with an error, so no job stays queued.
  const deadLetters = r.registrationDlq.subscribe(
    appFunction("functions/registration-dlq.handler", r, { timeout: WORKER_TIMEOUT }),
    { batch: { size: 10, partialResponses: true } },
  );

  // Jobs still `queued` after their message was lost are re-enqueued.
  const sweeper = new sst.aws.Cron("RegistrationSweeper", {
    schedule: "rate(5 minutes)",
    function: appFunction("functions/registration-sweeper.handler", r, {
      timeout: "60 seconds",
      // The next tick is the retry.
      retries: 0,
    }),
  });

  return { worker, deadLetters, sweeper };
}
