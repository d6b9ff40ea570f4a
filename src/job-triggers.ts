// The service's background jobs by name, and what starts each one. Plain data with no imports, so the
// cloud app (stacks/jobs.ts) builds its schedules and queue subscriptions from this list, and
// src/jobs.ts pairs every name with its handler; neither can name a job the other lacks.

/** A job run on a clock: in the cloud every `everyMinutes` (an EventBridge rate). */
export interface ScheduleTrigger {
  kind: "schedule";
  everyMinutes: number;
}

/** A job fed by one of the service's queues, a batch of messages at a time. */
export interface QueueTrigger {
  kind: "queue";
  queue: "registration" | "registration-dlq";
}

export type JobTrigger = ScheduleTrigger | QueueTrigger;

/**
 * Every background job. A job's name is also its Lambda entry point (`functions/<name>.ts`).
 * - indexer: follows the marketplace's events into the credentials index, then ERC-8004's registries
 *   (the listings' agents, their feedback and its verdicts).
 * - registration-worker: validates and registers each submitted manifest.
 * - registration-dlq: fails the jobs whose manifest could not be processed.
 * - registration-sweeper: re-enqueues jobs left queued after their message was lost.
 * - alerts: delivers the renters' alerts (a spending limit at 80% or 100%, a low per-task balance) to
 *   their webhooks, signed, retrying with backoff.
 * - settler: the one sender of the protocol authority's key: charges the per-query runs handed to it on
 *   the settlement queue, many per transaction and one batch per block, and logs finished runs' receipts
 *   on-chain in Merkle batches; while it holds the key's lease it also finishes runs whose end was never
 *   recorded and resolves deferred per-query charges. In the cloud each invocation runs until its
 *   deadline and the next one takes over (a schedule every minute starts one when none runs).
 */
export const JOB_TRIGGERS = {
  indexer: { kind: "schedule", everyMinutes: 1 },
  "registration-worker": { kind: "queue", queue: "registration" },
  "registration-dlq": { kind: "queue", queue: "registration-dlq" },
  "registration-sweeper": { kind: "schedule", everyMinutes: 5 },
  settler: { kind: "schedule", everyMinutes: 1 },
  alerts: { kind: "schedule", everyMinutes: 1 },
} as const satisfies Record<string, JobTrigger>;

export type JobName = keyof typeof JOB_TRIGGERS;
export const JOB_NAMES = Object.keys(JOB_TRIGGERS) as JobName[];

/** The jobs of one kind of trigger. */
export type ScheduledJobName = { [N in JobName]: (typeof JOB_TRIGGERS)[N] extends ScheduleTrigger ? N : never }[JobName];
export type QueueJobName = Exclude<JobName, ScheduledJobName>;

/** A schedule as EventBridge writes it: `rate(1 minute)`, `rate(5 minutes)`. */
export function rateExpression(trigger: ScheduleTrigger): `rate(${string})` {
  return `rate(${trigger.everyMinutes} minute${trigger.everyMinutes === 1 ? "" : "s"})`;
}
