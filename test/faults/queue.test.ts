// The registration queue redelivers: the same registration message arrives twice at once (SQS delivers at
// least once), and once more after a consumer processed it but died before deleting it (its visibility
// ends and the queue hands it out again). Through the real queue (fauxqs) and the real consumer loop:
// one job, one agent, one review, one listing in the catalogue, and it runs once like any other.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeMessageVisibilityCommand } from "@aws-sdk/client-sqs";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { startQueueConsumer } from "../../src/workers/queue-consumer.ts";
import { getJob, type JobResult } from "../../src/registration/jobs.ts";
import { listPendingListingReviews, reviewListing } from "../../src/listings/reviews.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { ACCESS_TYPE } from "@agent-rental/core/vocabulary";
import { signIn } from "../support/auth.ts";
import { indexChain, marketTarget } from "../support/agents.ts";
import { until } from "../support/until.ts";
import { expectMoneyAndRecordsIntact, startFaultWorld, type FaultWorld } from "./support.ts";

let world: FaultWorld;

beforeAll(async () => {
  world = await startFaultWorld();
});

afterAll(async () => {
  await world?.stop();
});

describe("the queue redelivers a registration", () => {
  it("registers one agent, one review and one catalogue listing from a message delivered twice at once and once more after a consumer died before deleting it", async () => {
    const { services, config } = world.ctx;
    const queueUrl = config.REGISTRATION_QUEUE_URL;
    const token = (await signIn(world.app, world.creator)).token;
    const name = "redelivered-agent";
    const manifest = {
      name,
      category: "research",
      description: "An agent whose registration the queue delivers more than once",
      model: { provider: "provider_a", model: "m" },
      entrypoint_url: `${world.agentServer.url}/agents/${name}`,
      input_schema: { type: "object" },
      output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"], examples: [{ findings: ["one"] }] },
      timeout_seconds: 20,
    };
    const submitted = await world.app.request("/v1/agents", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(manifest) });
    expect(submitted.status).toBe(202);
    const { job_id } = (await submitted.json()) as { job_id: string };
    const message = JSON.stringify({ job_id });

    // A consumer takes the message, registers the agent, and dies before deleting it: once its
    // visibility ends, the queue hands the same message out again.
    const [taken] = await services.queue.receive(queueUrl, { max: 1, waitSeconds: 5 });
    expect(taken?.body).toBe(message);
    await processRegistrationMessage(services, taken!.body);
    await services.queue.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: taken!.receiptHandle, VisibilityTimeout: 0 }));
    // And a duplicate of it, as an at-least-once queue may deliver beside the original.
    await services.queue.send(queueUrl, message);

    const handled: number[] = [];
    const consumer = startQueueConsumer({
      queue: services.queue,
      queueUrl,
      logger: services.logger,
      waitSeconds: 1,
      handler: async (delivery) => {
        handled.push(delivery.receiveCount);
        await processRegistrationMessage(services, delivery.body);
      },
    });
    try {
      await until("both deliveries handled and the queue empty", async () => handled.length >= 2 && (await services.queue.approximateCount(queueUrl)) === 0, 20_000);
    } finally {
      await consumer.stop();
    }
    // The redelivered original (its second receive) and the duplicate (its first).
    expect(handled.sort()).toEqual([1, 2]);

    const job = await getJob(services.tables, job_id);
    expect(job?.status).toBe("completed");
    const result = job!.result as JobResult;
    const items = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await services.tables.doc.send(new ScanCommand({ TableName: services.tables.name("listings"), ConsistentRead: true, ExclusiveStartKey: startKey }));
      items.push(...((page.Items ?? []) as Record<string, unknown>[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(items.filter((item) => item.sk === "agent" && item.job_id === job_id).map((item) => item.listing_id)).toEqual([result.listing_id]);
    expect(items.filter((item) => item.sk === "alias" && item.pk === `agent#${result.agent_id}`)).toHaveLength(1);
    expect((await listPendingListingReviews(services.tables)).filter((review) => review.listing_id === result.listing_id)).toHaveLength(1);

    // Published (listed on-chain, approved, indexed): the catalogue shows it once, and it runs once.
    await writeMarketplace(marketTarget(world.ctx), world.creator, "createListing", [result.listing_seed, ACCESS_TYPE.per_query, 10n ** 15n, result.metadata_uri]);
    await reviewListing(services.tables, result.listing_id, "approve", undefined);
    await indexChain(world.ctx);
    const searched = await world.app.request(`/v1/listings?q=${encodeURIComponent("delivers more than once")}`, { headers: { authorization: `Bearer ${token}` } });
    const searchText = await searched.text();
    expect(searched.status, searchText).toBe(200);
    const search = JSON.parse(searchText) as { listings: { id: string }[] };
    expect(search.listings.filter((listing) => listing.id === result.listing_id)).toHaveLength(1);

    const secret = await world.app.request(`/v1/listings/${result.listing_id}/webhook-secret`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    expect(secret.status).toBe(201);
    world.registerWebhookSecret(`/agents/${name}`, ((await secret.json()) as { webhook_secret: string }).webhook_secret);
    const renter = await world.renter();
    const listing = { ...result, onChainId: `0x${result.listing_id.slice(4)}` as `0x${string}`, priceWei: 10n ** 15n };
    await world.buy(renter, listing, listing.priceWei * 2n);
    const run = await world.execute(renter, { agent_id: result.agent_id, task: "run the redelivered agent" });
    expect(run.body).toMatchObject({ status: "completed", cost_wei: 1_000_000_000_000_000, output: { findings: ["done: run the redelivered agent"] } });
    expect(world.deliveries.filter((delivery) => delivery.task === "run the redelivered agent")).toHaveLength(1);
    await world.recover();
    await expectMoneyAndRecordsIntact(world);
  });
});
