// The Lambda entry point serves the same app: an API Gateway (HTTP API, payload 2.0) event in, the
// error envelope out.
import { beforeAll, describe, expect, it } from "vitest";
import { useLambdaEnvironment } from "../support/lambda-environment.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";

let ctx: TestContext;
let world: World | undefined;
beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
});
// The entry points boot their services from the environment, as in Lambda.
useLambdaEnvironment(() => ctx.env);

function event(path: string, headers: Record<string, string> = {}) {
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: "",
    headers: { host: "api.example.com", ...headers },
    requestContext: { http: { method: "GET", path, protocol: "HTTP/1.1", sourceIp: "203.0.113.1", userAgent: "test" }, domainName: "api.example.com", requestId: "r1", stage: "$default" },
    isBase64Encoded: false,
  };
}

describe("functions/api handler", () => {
  it("answers an unauthenticated call with 401 unauthorized in the envelope", async () => {
    const { handler } = await import("../../functions/api.ts");
    const res = (await (handler as unknown as (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string; headers: Record<string, string> }>)(event("/v1/credentials"), {}));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).error).toMatchObject({ code: "unauthorized", status: 401 });
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
  });

  it("serves the health route from the same app", async () => {
    const { handler } = await import("../../functions/api.ts");
    const res = (await (handler as unknown as (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>)(event("/v1/health"), {}));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ status: "ok", marketplace: ctx.config.MARKETPLACE_ADDRESS });
  });
});

describe("worker entry points", () => {
  const sqsEvent = (records: { id: string; body: string }[]) => ({
    Records: records.map((r) => ({ messageId: r.id, receiptHandle: `rh-${r.id}`, body: r.body, attributes: { ApproximateReceiveCount: "1" }, messageAttributes: {}, md5OfBody: "", eventSource: "aws:sqs", eventSourceARN: "arn", awsRegion: "us-east-1" })),
  });

  it("the registration worker reports only the failed messages of a batch", async () => {
    const { putQueuedJob, getJob } = await import("../../src/registration/jobs.ts");
    const { handler } = await import("../../functions/registration-worker.ts");
    const jobId = `job_${"ab".repeat(12)}`;
    // A job whose sealed manifest is missing: processing throws, so its message is reported failed.
    await putQueuedJob(ctx.services.tables, { job_id: jobId, wallet: "0x0000000000000000000000000000000000000001", created_at: new Date().toISOString(), manifest_blob: "jobs/missing", manifest_key: "local:v1:AAAA" });
    const result = await handler(sqsEvent([{ id: "m1", body: JSON.stringify({ job_id: jobId }) }, { id: "m2", body: "not a job reference" }]) as never);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: "m1" }] });
    expect((await getJob(ctx.services.tables, jobId))!.status).toBe("queued");

    // The dead-letter consumer then fails the job.
    const dlq = await import("../../functions/registration-dlq.ts");
    expect(await dlq.handler(sqsEvent([{ id: "d1", body: JSON.stringify({ job_id: jobId }) }]) as never)).toEqual({ batchItemFailures: [] });
    expect(await getJob(ctx.services.tables, jobId)).toMatchObject({ status: "failed", error: { code: "processing_failed" } });
  });

  it("the sweeper and the indexer run from their entry points", async () => {
    const sweeper = await import("../../functions/registration-sweeper.ts");
    expect(await sweeper.handler()).toEqual({ requeued: expect.any(Number) });
    const indexer = await import("../../functions/indexer.ts");
    const result = await indexer.handler({}, { getRemainingTimeInMillis: () => 30_000 });
    expect(result.rounds).toBeGreaterThanOrEqual(1);
  });
});
