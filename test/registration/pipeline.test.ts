// The registration pipeline on the real emulators: POST /v1/agents queues a sealed manifest, the
// queue's consumer validates it, publishes content-addressed metadata, seals the agent logic and
// completes the job; failures, redeliveries, dead letters and lost messages all end in a final job.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { randomBytes } from "node:crypto";
import { GetCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { SetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { createPublicClient, createWalletClient, encodePacked, http, keccak256, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../../src/api/app.ts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { ensureRegistrationQueues } from "../../src/adapters/queue/sqs.ts";
import { cidOf } from "../../src/registration/cid.ts";
import { getJob, putQueuedJob } from "../../src/registration/jobs.ts";
import { processRegistrationMessage, sweepQueuedJobs } from "../../src/registration/process.ts";
import { runJob, startJobs, type JobScheduler } from "../../src/jobs.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let creator: Awaited<ReturnType<typeof fundedAccount>>;
let token: string;
const schedulers: JobScheduler[] = [];

const SECRET_PROMPT = `You are a careful contract reviewer. secret-marker-${randomBytes(6).toString("hex")}`;
const manifest = (overrides: Record<string, unknown> = {}) => ({
  name: "contract-reviewer",
  category: "legal",
  description: "Reviews contracts and lists risky clauses.",
  model: { provider: "provider_a", model: "gpt-test" },
  system_prompt: SECRET_PROMPT,
  input_schema: { type: "object", properties: { contract: { type: "string" } }, required: ["contract"] },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, examples: [{ findings: ["Clause 4 is one-sided"] }] },
  ...overrides,
});

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  creator = await fundedAccount(inject("rpcUrl"));
  token = (await signIn(app, creator)).token;
  await approveCreator(ctx, app, creator.address, token);
});

afterAll(async () => {
  await Promise.all(schedulers.map((s) => s.stop()));
});

const submit = (body: string, headers: Record<string, string> = {}) =>
  app.request("/v1/agents", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers }, body });

/** Runs the registration worker over what is on the queue now; every message must succeed. */
async function drain(): Promise<void> {
  expect(await runJob(ctx.services, "registration-worker")).toMatchObject({ failed: 0 });
}

async function job(jobId: string, bearer = token) {
  const res = await app.request(`/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${bearer}` } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe("registration (POST /v1/agents, GET /v1/jobs/{job_id}, GET /v1/metadata/{cid})", () => {
  it("queues a manifest, completes the job, and links it to the listing the creator then creates on-chain", async () => {
    const res = await submit(JSON.stringify(manifest()));
    expect(res.status).toBe(202);
    const queued = (await res.json()) as { job_id: string; status: string };
    expect(queued).toEqual({ job_id: expect.stringMatching(/^job_[0-9a-f]{24}$/), status: "queued" });
    expect((await job(queued.job_id)).body).toEqual({ job_id: queued.job_id, status: "queued" });

    await drain();
    const done = await job(queued.job_id);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe("completed");
    const result = done.body.result as { agent_id: string; listing_id: string; listing_seed: `0x${string}`; metadata_uri: string };
    expect(result.agent_id).toMatch(/^contract-reviewer-[0-9a-f]{8}$/);
    expect(result.listing_id).toBe(`lst_${keccak256(encodePacked(["address", "bytes32"], [creator.address, result.listing_seed])).slice(2)}`);
    expect(result.metadata_uri).toMatch(/^ipfs:\/\/b[a-z2-7]+$/);

    // The metadata is public, content-addressed, and holds nothing private.
    const cid = result.metadata_uri.slice("ipfs://".length);
    const meta = await app.request(`/v1/metadata/${cid}`);
    expect(meta.status).toBe(200);
    const bytes = new Uint8Array(await meta.arrayBuffer());
    expect(cidOf(bytes)).toBe(cid);
    const doc = JSON.parse(Buffer.from(bytes).toString("utf8")) as Record<string, unknown>;
    expect(doc).toMatchObject({ name: "contract-reviewer", category: "legal", tools: [], timeout_seconds: 60 });
    const text = Buffer.from(bytes).toString("utf8");
    expect(text).not.toContain("secret-marker");
    expect(text).not.toContain("gpt-test");

    // The agent logic is stored sealed: the prompt is nowhere in clear.
    const onChainId = `0x${result.listing_id.slice(4)}` as `0x${string}`;
    const items0 = (await ctx.services.tables.doc.send(new ScanCommand({ TableName: ctx.services.tables.name("listings") }))).Items ?? [];
    const logicBlob = items0.find((item) => item.listing_id === result.listing_id && item.logic_blob)?.logic_blob as string;
    expect(logicBlob).toMatch(/^agents\/lst_[0-9a-f]{64}\/logic-[0-9a-f]{24}\.sealed$/);
    const sealed = await ctx.services.blobs.get(logicBlob);
    expect(sealed).not.toBeNull();
    expect(Buffer.from(sealed!).toString("latin1")).not.toContain("secret-marker");
    const items = (await ctx.services.tables.doc.send(new ScanCommand({ TableName: ctx.services.tables.name("listings") }))).Items ?? [];
    expect(JSON.stringify(items)).not.toContain("secret-marker");

    // The creator creates the listing with the seed and URI: the on-chain id is the job's listing id.
    const rpcUrl = inject("rpcUrl");
    const chain = chainFor(LOCAL_CHAIN_ID, rpcUrl);
    const wallet = createWalletClient({ account: privateKeyToAccount(creator.privateKey), chain, transport: http(rpcUrl) });
    const client = createPublicClient({ chain, transport: http(rpcUrl) });
    await client.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: ctx.config.MARKETPLACE_ADDRESS as `0x${string}`, abi: marketplaceAbi, functionName: "createListing", args: [result.listing_seed, 0, parseEther("0.01"), result.metadata_uri] }),
    });
    const listing = await client.readContract({ address: ctx.config.MARKETPLACE_ADDRESS as `0x${string}`, abi: marketplaceAbi, functionName: "listings", args: [onChainId] });
    expect(listing[4]).toBe(creator.address);
    expect(listing[6]).toBe(result.metadata_uri);
  });

  it("fails the job with every problem of the manifest and its JSON pointer", async () => {
    const bad = manifest({ name: "Bad Name", category: "cooking", tools: Array.from({ length: 11 }, (_, i) => ({ name: "web_search", scope: `x${i}` })), timeout_seconds: 301, entrypoint_url: "https://agent.example.com/run" });
    const { job_id } = (await (await submit(JSON.stringify(bad))).json()) as { job_id: string };
    await drain();
    const failed = (await job(job_id)).body;
    expect(failed.status).toBe("failed");
    expect(failed.error.code).toBe("invalid_manifest");
    const pointers = (failed.error.details as { pointer: string }[]).map((d) => d.pointer);
    expect(pointers).toEqual(expect.arrayContaining(["/name", "/category", "/tools", "/timeout_seconds"]));
    expect(failed.error.details.length).toBeGreaterThanOrEqual(5);
    expect(failed).not.toHaveProperty("result");
  });

  it("publishes every listing with one to three sample outputs: its examples, or one generated from its output schema", async () => {
    const sampleOutputOf = async (body: Record<string, unknown>) => {
      const queued = (await (await submit(JSON.stringify(body))).json()) as { job_id: string };
      await drain();
      const done = (await job(queued.job_id)).body;
      if (done.status !== "completed") return done;
      const onChainId = `0x${(done.result.listing_id as string).slice(4)}`;
      const record = await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("listings"), Key: { pk: `listing#${onChainId}`, sk: "agent" }, ConsistentRead: true }));
      return record.Item?.sample_output as string[];
    };
    const findings = { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] };
    expect(await sampleOutputOf(manifest({ output_schema: findings }))).toEqual(['{"findings":["string"]}']);
    expect(await sampleOutputOf(manifest({ output_schema: { ...findings, examples: [{ findings: ["a"] }, { findings: ["b"] }, { findings: ["c"] }, { findings: ["d"] }] } }))).toEqual([
      '{"findings":["a"]}',
      '{"findings":["b"]}',
      '{"findings":["c"]}',
    ]);
    const refused = (await sampleOutputOf(manifest({ output_schema: { ...findings, examples: [{ findings: "not a list" }] } }))) as unknown as Record<string, any>;
    expect(refused.status).toBe("failed");
    expect(refused.error.details).toEqual([{ pointer: "/output_schema/examples/0", code: "invalid_example", message: expect.stringContaining("/findings must be array") }]);
  });

  it("refuses at once what the request shows: not JSON, over 64 KB, not an object, no token", async () => {
    const notJson = await submit("{name: ");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    const big = await submit(JSON.stringify(manifest({ description: "x".repeat(70_000) })));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
    const array = await submit("[1,2]");
    expect(array.status).toBe(400);
    const anonymous = await app.request("/v1/agents", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(manifest()) });
    expect(anonymous.status).toBe(401);
    expect(await ctx.services.queue.approximateCount(ctx.config.REGISTRATION_QUEUE_URL)).toBe(0);
  });

  it("shows a job only to the creator who submitted it", async () => {
    const { job_id } = (await (await submit(JSON.stringify(manifest()))).json()) as { job_id: string };
    const other = await fundedAccount(inject("rpcUrl"), "1");
    const otherToken = (await signIn(app, other)).token;
    const seen = await job(job_id, otherToken);
    expect(seen.status).toBe(404);
    expect(seen.body.error.code).toBe("not_found");
    expect((await job("job_nope")).status).toBe(404);
    await drain();
  });

  it("registers once when a message is delivered twice", async () => {
    const { job_id } = (await (await submit(JSON.stringify(manifest({ name: "twice-delivered" })))).json()) as { job_id: string };
    const messages = await ctx.services.queue.receive(ctx.config.REGISTRATION_QUEUE_URL, { waitSeconds: 1 });
    const message = messages.find((m) => m.body.includes(job_id))!;
    await processRegistrationMessage(ctx.services, message.body);
    const first = await getJob(ctx.services.tables, job_id);
    await processRegistrationMessage(ctx.services, message.body);
    const second = await getJob(ctx.services.tables, job_id);
    expect(second).toEqual(first);
    const items = (await ctx.services.tables.doc.send(new ScanCommand({ TableName: ctx.services.tables.name("listings") }))).Items ?? [];
    expect(items.filter((i) => i.job_id === job_id)).toHaveLength(1);
    await ctx.services.queue.delete(ctx.config.REGISTRATION_QUEUE_URL, message.receiptHandle);
    await drain();
  });

  it("fails a job whose message keeps crashing the consumer, through the dead-letter queue", async () => {
    const suffix = randomBytes(4).toString("hex");
    const queues = await ensureRegistrationQueues(ctx.services.queue, { queue: `reg-crash-${suffix}`, dlq: `reg-crash-dlq-${suffix}` }, 2);
    await ctx.services.queue.client.send(new SetQueueAttributesCommand({ QueueUrl: queues.queueUrl, Attributes: { VisibilityTimeout: "1" } }));
    const jobId = `job_${randomBytes(12).toString("hex")}`;
    // A job whose sealed manifest is gone: every delivery throws.
    await putQueuedJob(ctx.services.tables, { job_id: jobId, wallet: creator.address.toLowerCase(), created_at: new Date().toISOString(), manifest_blob: `jobs/${jobId}/missing`, manifest_key: "local:v1:AAAA" });
    // The registration worker and the dead-letter consumer, on these two queues.
    const onTheseQueues = { ...ctx.services, config: { ...ctx.config, REGISTRATION_QUEUE_URL: queues.queueUrl, REGISTRATION_DLQ_URL: queues.dlqUrl } };
    schedulers.push(startJobs(onTheseQueues, { only: ["registration-worker", "registration-dlq"] }));
    await ctx.services.queue.send(queues.queueUrl, JSON.stringify({ job_id: jobId }));
    const deadline = Date.now() + 20_000;
    let status = "queued";
    while (status === "queued" && Date.now() < deadline) {
      status = (await getJob(ctx.services.tables, jobId))!.status;
      if (status === "queued") await new Promise((r) => setTimeout(r, 100));
    }
    const failed = await getJob(ctx.services.tables, jobId);
    expect(failed).toMatchObject({ status: "failed", error: { code: "processing_failed" } });
  }, 30_000);

  it("re-enqueues a job whose message was lost, and the consumer completes it", async () => {
    const res = await submit(JSON.stringify(manifest({ name: "lost-message" })));
    const { job_id } = (await res.json()) as { job_id: string };
    // Lose the message.
    const messages = await ctx.services.queue.receive(ctx.config.REGISTRATION_QUEUE_URL, { waitSeconds: 1 });
    for (const m of messages) await ctx.services.queue.delete(ctx.config.REGISTRATION_QUEUE_URL, m.receiptHandle);
    expect((await getJob(ctx.services.tables, job_id))!.status).toBe("queued");
    expect(await sweepQueuedJobs(ctx.services, 0)).toBeGreaterThanOrEqual(1);
    await drain();
    expect((await getJob(ctx.services.tables, job_id))!.status).toBe("completed");
  });
});
