// SQS: the registration queue (manifest validation) and its dead-letter queue, and the settlement queue
// (per-query charges, from every function to the settler). Their consumers, and the sweeper that
// re-drives jobs stuck in `queued`, are background jobs (stacks/jobs.ts).

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

/** The settlement queue's visibility timeout: the same as the local stack's (src/adapters/queue/sqs.ts). */
export const SETTLEMENT_VISIBILITY_SECONDS = 30;

export function createSettlementQueue() {
  // The settler deletes a charge's message once the chain has decided it, and hides the ones it holds a
  // while longer as it waits: a settler that dies hands its charges to the next one after the visibility
  // timeout. No dead-letter queue: nothing fails for ever (an unreadable message is logged and deleted),
  // and charges wait through the longest outage SQS allows.
  const settlementQueue = new sst.aws.Queue("SettlementQueue", {
    visibilityTimeout: `${SETTLEMENT_VISIBILITY_SECONDS} seconds`,
    transform: { queue: { messageRetentionSeconds: 14 * 24 * 60 * 60 } },
  });
  return { settlementQueue };
}
