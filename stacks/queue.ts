// SQS: the registration queue (manifest validation) and its dead-letter queue. Their consumers, and
// the sweeper that re-drives jobs stuck in `queued`, are background jobs (stacks/jobs.ts).

/** A message is retried this many receives before it lands in the dead-letter queue. */
export const REGISTRATION_MAX_RECEIVES = 5;

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
