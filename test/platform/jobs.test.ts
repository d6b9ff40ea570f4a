// The background jobs of src/jobs.ts on the real emulators and chain: every job has its Lambda entry
// point (the settler's, bounded by the invocation's time, is tested in test/run-log/lambda.test.ts);
// one pass of a job (runJob); the local scheduler retries a failing job and stops cleanly.
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { JOB_NAMES, JOBS, runJob, startJobs } from "../../src/jobs.ts";
import { createTables } from "../../src/adapters/tables/dynamo.ts";
import { createLogger } from "../../src/logger.ts";
import { getJob, putQueuedJob } from "../../src/registration/jobs.ts";
import { useLambdaEnvironment } from "../support/lambda-environment.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { until } from "../support/until.ts";
import { finishedRun, readRun, writeRuns } from "../run-log/support.ts";

let ctx: TestContext;
let world: World | undefined;
beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
});
// The entry points boot their services from the environment, as in Lambda.
useLambdaEnvironment(() => ctx.env);

/** A queued job whose sealed manifest is missing: processing its message throws. */
async function brokenJob(): Promise<string> {
  const jobId = `job_${randomBytes(12).toString("hex")}`;
  await putQueuedJob(ctx.services.tables, { job_id: jobId, wallet: "0x0000000000000000000000000000000000000001", created_at: new Date().toISOString(), manifest_blob: `jobs/${jobId}/missing`, manifest_key: "local:v1:AAAA" });
  return jobId;
}

describe("the job list", () => {
  it("gives every job a trigger, a handler and a Lambda entry point, functions/<name>.ts", async () => {
    expect(JOBS.map((job) => job.name)).toEqual(JOB_NAMES);
    for (const job of JOBS) {
      expect(typeof ("start" in job ? job.start : job.handle)).toBe("function");
      const entry = new URL(`../../functions/${job.name}.ts`, import.meta.url);
      expect(existsSync(entry), `functions/${job.name}.ts`).toBe(true);
      const { handler } = (await import(entry.href)) as { handler: unknown };
      expect(typeof handler).toBe("function");
    }
  });
});

describe("runJob", () => {
  it("runs a queue job over everything on its queue now, and leaves a failed message for a later delivery", async () => {
    const jobId = await brokenJob();
    const queueUrl = ctx.config.REGISTRATION_QUEUE_URL;
    await Promise.all([ctx.services.queue.send(queueUrl, "not a job reference"), ctx.services.queue.send(queueUrl, "{}"), ctx.services.queue.send(queueUrl, JSON.stringify({ job_id: jobId }))]);
    expect(await runJob(ctx.services, "registration-worker")).toEqual({ received: 3, failed: 1 });
    expect((await getJob(ctx.services.tables, jobId))!.status).toBe("queued");
    // The failed message is in flight until its visibility timeout; the others were deleted.
    expect(await ctx.services.queue.approximateCount(queueUrl)).toBe(1);
    expect(await runJob(ctx.services, "registration-worker")).toEqual({ received: 0, failed: 0 });
  });

  it("runs the settler's steps in one pass (stale runs, deferred charges, the charges on its queue, the run log) and returns the figures of each", async () => {
    const runs = [finishedRun(), finishedRun()];
    await writeRuns(ctx.services, runs);
    const pass = await runJob(ctx.services, "settler");
    expect(pass).toEqual({
      stale: { charged: 0, failed: 0, skipped: 0 },
      settlements: { settled: 0, refused: 0, pending: 0 },
      charges: { leased: true, batches: 0, charged: 0, refused: 0, skipped: 0, reverted: 0, outOfGas: 0, dropped: 0, discarded: 0, maxPending: 1, orphaned: 0, replaced: 0 },
      log: { batches: 1, runs: 2 },
    });
    for (const run of runs) expect((await readRun(ctx.services, run.run_id))!.log_state).toBe("logged");
  });
});

describe("startJobs", () => {
  it("logs a failing scheduled job with its name, retries it after a growing pause, and stops", async () => {
    const lines: Record<string, unknown>[] = [];
    const unreachable = createTables({ region: "us-east-1", prefix: ctx.config.TABLE_PREFIX, endpoint: "http://127.0.0.1:1" });
    const services = { ...ctx.services, tables: unreachable, logger: createLogger("warn", (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) };
    const jobs = startJobs(services, { only: ["registration-sweeper"], everyMs: { "registration-sweeper": 10 } });
    try {
      await until("two failed passes of the sweeper", () => lines.length >= 2, 20_000);
    } finally {
      await jobs.stop();
    }
    const failures = lines.filter((line) => line.message === "background job failed; retried");
    expect(failures.length).toBe(lines.length);
    expect(failures.map((line) => line.job)).toEqual(failures.map(() => "registration-sweeper"));
    expect(failures.slice(0, 2).map((line) => line.retry_in_ms)).toEqual([200, 400]);
  });

  it("stops a settler asked to stop while it was still taking the key's lease, at once", async () => {
    // The stop fires while the lease is being taken: a settler that only listened for a stop after
    // taking it never heard this one, and ran on (a test world's close waited a minute for it).
    const jobs = startJobs(ctx.services, { only: ["settler"] });
    const stopped = jobs.stop().then(() => "stopped" as const);
    const bound = new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 15_000).unref());
    expect(await Promise.race([stopped, bound])).toBe("stopped");
  });
});
