// Registration throughput and latency through the local queue, beside baselines from the same run:
//  - submit → completed per job (POST /v1/agents in-process, the queue consumer, validation,
//    content-addressed metadata, sealing, the job's conditional completion): p50/p95, and jobs per
//    second for a burst of N jobs;
//  - baselines: a bare SQS send → receive → delete round trip through the same emulator, and the
//    validator alone on the same manifest.
// Run: npm run bench -- registration   (or: node --import tsx bench/registration.ts)
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestClient, http, parseEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../src/api/app.ts";
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { ensureTables } from "../src/adapters/tables/dynamo.ts";
import { ensureRegistrationQueues, createQueue } from "../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../src/adapters/blobs/s3.ts";
import { chainFor } from "../src/chain/client.ts";
import { deployMarketplace } from "../src/chain/deploy.ts";
import { generateSigningKey } from "../src/auth/jwt.ts";
import { createLogger } from "../src/logger.ts";
import { applyAsCreator, reviewCreator } from "../src/creators/creators.ts";
import { processRegistrationMessage } from "../src/registration/process.ts";
import { validateManifest } from "@agent-rental/core/manifest";
import { startQueueConsumer } from "../src/workers/queue-consumer.ts";
import { startChain, LOCAL_CHAIN_ID } from "../local/chain.ts";
import { startDynamo, startQueues } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { signIn } from "../test/support/auth.ts";
import { ms, summarize } from "./stats.ts";

const manifest = (i: number) => ({
  name: `bench-agent-${i}`,
  category: "research",
  description: "Benchmarks the registration pipeline with a realistic manifest.",
  model: { provider: "provider_a", model: "demo-model" },
  system_prompt: "You research things carefully. ".repeat(20),
  tools: [{ name: "web_search", scope: "public" }],
  input_schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"], examples: [{ findings: ["a"] }] },
});

export async function runRegistrationBench(options: { jobs?: number } = {}): Promise<string[]> {
  const n = options.jobs ?? 200;
  const dir = mkdtempSync(join(tmpdir(), "bench-registration-"));
  const [chain, dynamo, aws] = await Promise.all([freePort().then((port) => startChain({ port })), freePort().then((port) => startDynamo({ port })), freePort().then((port) => startQueues({ port }))]);
  const rows: string[] = [];
  try {
    const pk = generatePrivateKey();
    const authority = privateKeyToAccount(pk);
    await createTestClient({ mode: "hardhat", transport: http(chain.rpcUrl) }).setBalance({ address: authority.address, value: parseEther("100") });
    const deployed = await deployMarketplace({ rpcUrl: chain.rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, chain.rpcUrl), deployerPrivateKey: pk as Hex, authority: authority.address, feeRecipient: authority.address });
    const queue = createQueue({ region: "us-east-1", endpoint: aws.endpoint });
    const suffix = randomBytes(4).toString("hex");
    const queues = await ensureRegistrationQueues(queue, { queue: `bench-${suffix}`, dlq: `bench-dlq-${suffix}` });
    const config = loadConfig({
      STAGE: "local", TABLE_PREFIX: "bench-", DYNAMODB_ENDPOINT: dynamo.endpoint, AWS_ENDPOINT: aws.endpoint, REGISTRATION_QUEUE_URL: queues.queueUrl, REGISTRATION_DLQ_URL: queues.dlqUrl, SETTLEMENT_QUEUE_URL: "http://127.0.0.1:1/000000000000/unused-settlement",
      BLOB_BUCKET: "bench-blobs", RPC_URL: chain.rpcUrl, CHAIN_ID: String(LOCAL_CHAIN_ID), MARKETPLACE_ADDRESS: deployed.address, LOG_LEVEL: "silent",
      JWT_SIGNING_KEYS: JSON.stringify([generateSigningKey()]), LOCAL_MASTER_KEY: randomBytes(32).toString("base64"),
    });
    // The pipeline is measured, not the rate limit (100 requests a minute per wallet): no limit here.
    const unlimited = { limit: async (_key: string, rule: { limit: number }) => ({ allowed: true, limit: rule.limit, remaining: rule.limit, reset: Math.ceil(Date.now() / 1000) + 60, retryAfterSeconds: 0 }) };
    const services = createServices(config, { logger: createLogger("silent"), rateLimiter: unlimited });
    await ensureTables(services.tables, config.TABLE_PREFIX);
    await ensureBucket(createBlobs({ region: "us-east-1", bucket: config.BLOB_BUCKET, endpoint: aws.endpoint }).client, config.BLOB_BUCKET);
    const app = buildApp(services);
    const creator = privateKeyToAccount(generatePrivateKey());
    await applyAsCreator(services.tables, creator.address, "Bench Creator");
    await reviewCreator(services.tables, creator.address, "approve", undefined);
    const token = (await signIn(app, creator)).token;

    // Baselines.
    const sqsTimes: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await queue.send(queues.dlqUrl, "ping");
      const [m] = await queue.receive(queues.dlqUrl, { waitSeconds: 1, max: 1 });
      await queue.delete(queues.dlqUrl, m!.receiptHandle);
      sqsTimes.push(performance.now() - t);
    }
    const validateTimes: number[] = [];
    const body = manifest(0);
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      validateManifest(body);
      validateTimes.push(performance.now() - t);
    }

    // The pipeline: two consumers, as the local stack would scale it.
    const submittedAt = new Map<string, number>();
    const completedAt = new Map<string, number>();
    let done: () => void = () => {};
    const allDone = new Promise<void>((resolve) => (done = resolve));
    const handler = async (m: { body: string }) => {
      await processRegistrationMessage(services, m.body);
      const { job_id } = JSON.parse(m.body) as { job_id: string };
      if (!completedAt.has(job_id)) completedAt.set(job_id, performance.now());
      if (completedAt.size >= n) done();
    };
    const consumers = [1, 2].map(() => startQueueConsumer({ queue, queueUrl: queues.queueUrl, logger: services.logger, waitSeconds: 1, handler }));
    const began = performance.now();
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const t = performance.now();
        const res = await app.request("/v1/agents", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(manifest(i)) });
        if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
        submittedAt.set(((await res.json()) as { job_id: string }).job_id, t);
      }),
    );
    await Promise.race([allDone, new Promise((_, reject) => setTimeout(() => reject(new Error("registration bench timed out")), 120_000).unref())]);
    const elapsed = (performance.now() - began) / 1000;
    const latencies = [...completedAt].map(([id, t]) => t - submittedAt.get(id)!);
    const lat = summarize(latencies);
    const sqs = summarize(sqsTimes);
    const val = summarize(validateTimes);
    rows.push(`burst of ${n} registrations, 2 consumers: ${(n / elapsed).toFixed(1)} jobs/s; submit → completed p50 ${ms(lat.p50)}, p95 ${ms(lat.p95)}, max ${ms(lat.max)}`);
    rows.push(`  baseline: bare SQS send → receive → delete, n=50: p50 ${ms(sqs.p50)}, p95 ${ms(sqs.p95)}`);
    rows.push(`  baseline: validator alone, n=200: p50 ${ms(val.p50)}, p95 ${ms(val.p95)}`);
    // A job submitted alone, the latency a creator sees without a queue backlog.
    const single: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      const res = await app.request("/v1/agents", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(manifest(10_000 + i)) });
      const { job_id } = (await res.json()) as { job_id: string };
      const deadline = Date.now() + 30_000;
      while (!completedAt.has(job_id)) {
        if (Date.now() > deadline) throw new Error("single registration timed out");
        await new Promise((r) => setTimeout(r, 1));
      }
      single.push(completedAt.get(job_id)! - t);
    }
    await Promise.all(consumers.map((c) => c.stop()));
    const one = summarize(single);
    rows.push(`single registration, no backlog, n=20: submit → completed p50 ${ms(one.p50)}, p95 ${ms(one.p95)}; ratio p50 to the bare SQS round trip ${(one.p50 / sqs.p50).toFixed(2)}x`);
  } finally {
    await Promise.allSettled([chain.stop(), dynamo.stop(), aws.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await runRegistrationBench()) console.log(row);
}
