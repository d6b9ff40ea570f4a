// The service's background jobs, each declared once: its name and trigger (src/job-triggers.ts) and
// here its handler. Three homes run this list and nothing else:
//  - the cloud: one Lambda function per job (functions/<name>.ts is `lambdaJob(name, bootServices())`),
//    scheduled or subscribed to its queue by stacks/jobs.ts;
//  - the local stack: `startJobs`, a small scheduler (an interval per scheduled job, a long-poller per
//    queue) that stops cleanly;
//  - the tests: `runJob` for one pass of a named job, or `startJobs`.
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { Config } from "./config.ts";
import type { Services } from "./services.ts";
import type { QueueMessage } from "./adapters/queue/sqs.ts";
import { JOB_TRIGGERS, JOB_NAMES, type JobName, type QueueJobName, type QueueTrigger, type ScheduledJobName, type ScheduleTrigger } from "./job-triggers.ts";
import { catchUp } from "./credentials/indexer.ts";
import { catchUpErc8004 } from "./erc8004/indexer.ts";
import { failDeadLetter, processRegistrationMessage, sweepQueuedJobs } from "./registration/process.ts";
import { finishStaleRuns } from "./execution/runs/stale-runs.ts";
import { settlePendingRuns } from "./execution/money/settlement.ts";
import { createRunLog, type RunLogPass } from "./execution/run-log/pass.ts";
import { createSettler, type SettlerTally } from "./execution/settler/settler.ts";
import { consumeBatch, handleBatch, startQueueConsumer, type QueueConsumer } from "./workers/queue-consumer.ts";
import { traced } from "./observability/tracing.ts";
import { deliverAlerts } from "./alerts/deliver.ts";

export { JOB_NAMES, JOB_TRIGGERS, type JobName } from "./job-triggers.ts";

/** One pass of a scheduled job. */
export interface SchedulePass {
  /** When the pass should be done (milliseconds since the epoch): a Lambda's remaining time; locally
   * and in tests, no limit. */
  deadline: number;
  /** The local scheduler's stop. A job that runs for as long as it may (the settler) stops when it
   * aborts; a pass with neither a finite deadline nor a signal (runJob) does what is due now and returns. */
  signal?: AbortSignal;
}

interface ScheduledHandler<R> {
  /** How often the local scheduler runs it (the cloud's rate is minutes; locally results should show
   * in seconds). */
  localEveryMs(config: Config): number;
  /** The job's pass function, made once per process that runs the job (a Lambda instance, a local
   * scheduler) and kept for its life: what a job keeps between passes lives in this closure. */
  start(services: Services): (pass: SchedulePass) => Promise<R>;
}

interface QueueHandler {
  handle(services: Services, message: QueueMessage): Promise<void>;
}

/** Time the indexer keeps back at the end of an invocation (its writes land before the next tick). */
const INDEXER_MARGIN_MS = 10_000;
/** Time a settler invocation keeps back to wind down: the batches it holds sent and mined (a few blocks),
 * the rest handed back to the queue, the lease given up for the next invocation. */
function settlerWindDownMs(config: Config): number {
  return 5 * Math.max(config.CHAIN_BLOCK_TIME_MS, 1_000) + 5_000;
}
/** The run log's last batch starts this long before the settler stops taking work: its transaction goes
 * out through the settler, which sends until then. */
const SETTLER_LOG_MARGIN_MS = 5_000;

/** What a settler pass did: its scheduled work's last round (stale runs, deferred charges, the run log) and
 * what it charged. */
export interface SettlerPass {
  stale: Awaited<ReturnType<typeof finishStaleRuns>>;
  settlements: Awaited<ReturnType<typeof settlePendingRuns>>;
  charges: SettlerTally;
  log: RunLogPass;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

const HANDLERS = {
  indexer: {
    // Locally a block is mined per transaction: a short poll shows a purchase in the index at once.
    localEveryMs: () => 250,
    start: (services: Services) => async (pass: SchedulePass) => {
      const { config } = services;
      const result = await catchUp(
        { tables: services.tables, chain: services.chain, logger: services.logger, fromBlock: config.MARKETPLACE_DEPLOY_BLOCK, confirmations: config.INDEXER_CONFIRMATIONS, finalityDepth: config.network.finalityDepth },
        Math.max(1_000, pass.deadline - Date.now() - INDEXER_MARGIN_MS),
      );
      if (result.events > 0) services.logger.info("indexer caught up", result);
      // Then ERC-8004's registries (when configured): the listings' agents and their feedback, which
      // reads the marketplace's index (a listing's creator) just brought up to date.
      const erc8004 = await catchUpErc8004(
        { tables: services.tables, chain: services.chain, blobs: services.blobs, logger: services.logger, fromBlock: config.ERC8004_DEPLOY_BLOCK, confirmations: config.INDEXER_CONFIRMATIONS, finalityDepth: config.network.finalityDepth },
        Math.max(1_000, pass.deadline - Date.now() - INDEXER_MARGIN_MS),
      );
      if (erc8004.events > 0) services.logger.info("erc8004 indexer caught up", erc8004);
      return { ...result, erc8004_events: erc8004.events };
    },
  },
  "registration-worker": { handle: (services: Services, message: QueueMessage) => processRegistrationMessage(services, message.body) },
  "registration-dlq": { handle: (services: Services, message: QueueMessage) => failDeadLetter(services, message.body) },
  "registration-sweeper": {
    localEveryMs: () => 60_000,
    start: (services: Services) => async () => {
      const requeued = await sweepQueuedJobs(services);
      if (requeued > 0) services.logger.info("registration jobs re-enqueued", { requeued });
      return { requeued };
    },
  },
  settler: {
    // A pass runs for as long as it may; one that returns (another settler holds the lease, or it
    // stopped on an error) is started again a second later.
    localEveryMs: () => 1_000,
    start(services: Services) {
      // One settler per process: it owns the authority's nonces while it holds the key's lease, and the
      // run log sends through it.
      const settler = createSettler(services);
      const runLog = createRunLog({ ...services, authority: settler.signer });
      const empty = (): SettlerPass => ({
        stale: { charged: 0, failed: 0, skipped: 0 },
        settlements: { settled: 0, refused: 0, pending: 0 },
        charges: { leased: false, batches: 0, charged: 0, refused: 0, skipped: 0, reverted: 0, outOfGas: 0, dropped: 0, replaced: 0, discarded: 0, maxPending: 0, orphaned: 0 },
        log: { batches: 0, runs: 0 },
      });
      /** Runs whose end was never recorded are finished from what the chain says; deferred charges are
       * resolved from the chain (or handed over again); then finished runs are logged. A pass's figures
       * add up its rounds. */
      const round = async (pass: SettlerPass, deadline: number) => {
        const stale = await finishStaleRuns(services);
        if (stale.charged + stale.failed > 0) services.logger.warn("stale runs finished", { ...stale });
        const settlements = await settlePendingRuns(services);
        if (settlements.settled + settlements.refused > 0) services.logger.info("pending settlements resolved", { ...settlements });
        const log = await runLog.pass({ deadline: deadline - SETTLER_LOG_MARGIN_MS });
        if (log.runs > 0) services.logger.info("runs logged on-chain", { ...log });
        pass.stale = { charged: pass.stale.charged + stale.charged, failed: pass.stale.failed + stale.failed, skipped: stale.skipped };
        // Pending is what is left now, not a sum.
        pass.settlements = { settled: pass.settlements.settled + settlements.settled, refused: pass.settlements.refused + settlements.refused, pending: settlements.pending };
        pass.log = { batches: pass.log.batches + log.batches, runs: pass.log.runs + log.runs };
      };
      return async (schedule: SchedulePass): Promise<SettlerPass> => {
        const pass = empty();
        if (schedule.signal === undefined && !Number.isFinite(schedule.deadline)) {
          // One pass (runJob): what is due now, with every charge on the queue sent and decided.
          pass.charges = await settler.run({ deadline: Number.POSITIVE_INFINITY, drain: true, whileLeased: () => round(pass, Number.POSITIVE_INFINITY) });
          // Without the lease (another settler sends) the steps that send nothing still run.
          if (!pass.charges.leased) {
            pass.stale = await finishStaleRuns(services);
            pass.settlements = await settlePendingRuns(services);
          }
          return pass;
        }
        const deadline = schedule.deadline - (Number.isFinite(schedule.deadline) ? settlerWindDownMs(services.config) : 0);
        pass.charges = await settler.run({
          deadline,
          ...(schedule.signal ? { signal: schedule.signal } : {}),
          whileLeased: async (stop) => {
            while (!stop.aborted) {
              await round(pass, deadline).catch((error: unknown) => services.logger.warn("settler round failed; retried", { cause: error instanceof Error ? error.message : String(error) }));
              await pause(services.config.RUN_LOG_INTERVAL_MS, stop);
            }
          },
        });
        if (pass.charges.batches > 0) services.logger.info("settler stopped", { ...pass.charges });
        return pass;
      };
    },
  },
  alerts: {
    // Locally an alert reaches its webhook within a second; in the cloud within the minute's tick.
    localEveryMs: () => 1_000,
    start: (services: Services) => async () => {
      const tally = await deliverAlerts(services);
      if (tally.delivered + tally.retried + tally.failed > 0) services.logger.info("alerts delivered", tally);
      return tally;
    },
  },
} satisfies { [N in ScheduledJobName]: ScheduledHandler<unknown> } & { [N in QueueJobName]: QueueHandler };

type Handlers = typeof HANDLERS;
/** What one pass of a scheduled job returns. */
export type PassResult<N extends ScheduledJobName> = Awaited<ReturnType<ReturnType<Handlers[N]["start"]>>>;
/** What one pass of a queue job (everything on the queue now) returns. */
export interface QueuePass {
  received: number;
  failed: number;
}
export type JobResult<N extends JobName> = N extends ScheduledJobName ? PassResult<N> : QueuePass;

type ScheduledJob = { name: ScheduledJobName; trigger: ScheduleTrigger } & ScheduledHandler<unknown>;
type QueueJob = { name: QueueJobName; trigger: QueueTrigger } & QueueHandler;
/** A background job: its name, what starts it, and its handler. */
export type Job = ScheduledJob | QueueJob;

/** Every job, with its trigger and its handler. */
export const JOBS: readonly Job[] = JOB_NAMES.map((name) => ({ name, trigger: JOB_TRIGGERS[name], ...HANDLERS[name] }) as Job);

function jobNamed(name: JobName): Job {
  const job = JOBS.find((j) => j.name === name);
  if (!job) throw new RangeError(`No background job named ${JSON.stringify(name)}.`);
  return job;
}

/** The URL of a queue trigger's queue, from the configuration. */
export function queueUrlOf(config: Config, trigger: QueueTrigger): string {
  return trigger.queue === "registration" ? config.REGISTRATION_QUEUE_URL : config.REGISTRATION_DLQ_URL;
}

/**
 * Runs one pass of a job now: a scheduled job's handler once (with no deadline unless one is given),
 * or, for a queue job, everything on its queue now (failed messages stay on the queue). Errors of a
 * scheduled pass are thrown.
 *
 * @example
 * const { settlements, charges } = await runJob(services, "settler");
 */
export async function runJob<N extends JobName>(services: Services, name: N, pass: Partial<SchedulePass> = {}): Promise<JobResult<N>> {
  const job = jobNamed(name);
  if (job.trigger.kind === "schedule") return (await (job as ScheduledJob).start(services)({ deadline: pass.deadline ?? Number.POSITIVE_INFINITY })) as JobResult<N>;
  const { handle } = job as QueueJob;
  const consumer = { queue: services.queue, queueUrl: queueUrlOf(services.config, job.trigger), logger: services.logger, waitSeconds: 0, handler: (m: QueueMessage) => handle(services, m) };
  const total: QueuePass = { received: 0, failed: 0 };
  for (;;) {
    const batch = await consumeBatch(consumer);
    if (batch.received === 0) return total as JobResult<N>;
    total.received += batch.received;
    total.failed += batch.failed;
    // A failed message stays invisible until its visibility timeout: it is not received again here.
  }
}

export interface JobScheduler {
  /** Stops every job; resolves once the passes in flight have ended. */
  stop(): Promise<void>;
}

export interface StartJobsOptions {
  /** The jobs to run (default: every job). */
  only?: readonly JobName[];
  /** Interval overrides for scheduled jobs, in milliseconds (default: each job's local interval). */
  everyMs?: Partial<Record<ScheduledJobName, number>>;
  /** Long-poll wait of a queue job's receive, in seconds (default 1; a stop waits for at most one). */
  queueWaitSeconds?: number;
}

/** Failed passes are retried after a growing pause, up to this long (or the job's interval, if longer). */
const MAX_BACKOFF_MS = 5_000;

/**
 * Runs the jobs in this process: each scheduled job at once and then every interval after its pass
 * ends (so a job never runs two passes at once), each queue job as a long-poller of its queue.
 * A failed pass is logged and retried.
 *
 * @example
 * const jobs = startJobs(services, { only: ["registration-worker", "indexer"], everyMs: { indexer: 100 } });
 * await jobs.stop();
 */
export function startJobs(services: Services, options: StartJobsOptions = {}): JobScheduler {
  const jobs = options.only ? JOBS.filter((job) => options.only!.includes(job.name)) : JOBS;
  let stopped = false;
  const stopping = new AbortController();
  const sleepers = new Set<() => void>();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  const loops: Promise<void>[] = [];
  const consumers: QueueConsumer[] = [];
  for (const job of jobs) {
    const name = job.name;
    if (job.trigger.kind === "schedule") {
      const handler = job as ScheduledJob;
      const everyMs = options.everyMs?.[handler.name] ?? handler.localEveryMs(services.config);
      const run = handler.start(services);
      loops.push(
        (async () => {
          let backoffMs = 0;
          while (!stopped) {
            try {
              await run({ deadline: Number.POSITIVE_INFINITY, signal: stopping.signal });
              backoffMs = 0;
            } catch (error) {
              backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs ? backoffMs * 2 : 200);
              services.logger.warn("background job failed; retried", { job: name, retry_in_ms: Math.max(everyMs, backoffMs), cause: error instanceof Error ? error.message : String(error) });
            }
            if (!stopped) await pause(Math.max(everyMs, backoffMs));
          }
        })(),
      );
    } else {
      const handler = job as QueueJob;
      consumers.push(
        startQueueConsumer({
          queue: services.queue,
          queueUrl: queueUrlOf(services.config, job.trigger),
          logger: services.logger,
          waitSeconds: options.queueWaitSeconds ?? 1,
          handler: (message) => handler.handle(services, message),
        }),
      );
    }
  }
  return {
    async stop() {
      stopped = true;
      stopping.abort();
      for (const wake of [...sleepers]) wake();
      await Promise.all([...loops, ...consumers.map((c) => c.stop())]);
    },
  };
}

/** The invocation context fields a scheduled job reads. */
interface LambdaContext {
  getRemainingTimeInMillis?: () => number;
}

/** A scheduled job's Lambda handler: one pass, bounded by the invocation's remaining time. */
export type ScheduledLambda<N extends ScheduledJobName> = (event?: unknown, context?: LambdaContext) => Promise<PassResult<N>>;
/** A queue job's Lambda handler: an SQS batch in, the failed messages out (partial batch response). */
export type QueueLambda = (event: SQSEvent) => Promise<SQSBatchResponse>;

/**
 * A job as a Lambda handler (traced, with the job's name as its subsegment).
 *
 * @example
 * // functions/indexer.ts
 * export const handler = lambdaJob("indexer", bootServices());
 */
export function lambdaJob<N extends JobName>(name: N, services: Services): N extends ScheduledJobName ? ScheduledLambda<N> : QueueLambda {
  const job = jobNamed(name);
  if (job.trigger.kind === "schedule") {
    const handler = job as ScheduledJob;
    // Without a context (an invocation by hand), a pass gets the scheduled functions' usual minute.
    const pass = handler.start(services);
    const run = (_event?: unknown, context?: LambdaContext) => pass({ deadline: Date.now() + (context?.getRemainingTimeInMillis?.() ?? 55_000) });
    return traced(name, run) as never;
  }
  const handler = job as QueueJob;
  const consume = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const messages = event.Records.map((r) => ({ id: r.messageId, body: r.body, receiptHandle: r.receiptHandle, receiveCount: Number(r.attributes.ApproximateReceiveCount) }));
    const { failedIds } = await handleBatch(messages, (m) => handler.handle(services, m), services.logger);
    return { batchItemFailures: failedIds.map((itemIdentifier) => ({ itemIdentifier })) };
  };
  return traced(name, consume) as never;
}
