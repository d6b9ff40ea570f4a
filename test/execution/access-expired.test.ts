// An expired subscription is refused before any agent work: the access check (step two of the two-step
// check) and POST /v1/execute (and /v1/execute/stream) answer 403 `credential_expired` (without
// on_chain_error: the contract has no custom error for expiry), and the agent receives nothing. Expiry
// needs chain time to move, and the shared Hardhat node of the test run must not be time-travelled
// (other files run on it in parallel), so this file runs on a Hardhat node of its own, with a
// marketplace, tables, queues and a bucket of its own.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { createTestClient, http, parseEther, type Hex } from "viem";
import { buildApp } from "../../src/api/app.ts";
import { ApiError } from "../../src/errors.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import { createQueue, ensureRegistrationQueues } from "../../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../../src/adapters/blobs/s3.ts";
import { catchUp } from "../../src/credentials/indexer.ts";
import { readChainCredential } from "../../src/credentials/verify.ts";
import { checkExecutionAccess } from "../../src/execution/access.ts";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { reviewListing } from "../../src/listings/reviews.ts";
import { startChain, type ChainNode } from "../../local/chain.ts";
import { freePort } from "../../local/ports.ts";
import type { TestContext } from "../support/services.ts";
import { createKey, signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { createServicesOn, DAYS_30, fundAccount, type Account, type ServicesOn, type TxResult } from "../support/chain-actions.ts";
import { startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { readBody } from "../support/http.ts";

const PRICE = parseEther("0.001");
/** The contract's CredentialStatus.Expired. */
const CHAIN_EXPIRED = 2;

interface Registered {
  listing_id: string;
  agent_id: string;
  listing_seed: Hex;
  metadata_uri: string;
}
interface ErrorEnvelope {
  error: { code: string; message: string; status: number; request_id: string; on_chain_error?: { contract: string; error: string } };
}

type AppLike = ReturnType<typeof buildApp>;

describe("an expired subscription (own node, chain time moves)", () => {
  let node: ChainNode;
  let env: ServicesOn;
  let app: AppLike;
  let agentServer: HttpsTestServer;
  let creator: Account;
  let renter: Account;
  let renterKey: string;
  let listing: Registered & { onChainId: Hex };
  let purchase: TxResult;
  let expiresAt: number;
  let webhookSecret = "";
  /** Every request the connected agent received, with whether its webhook signature verified. */
  const deliveries: { task: string; verified: boolean }[] = [];

  /** The connected agent: checks the Standard Webhooks signature, records the delivery, answers the Run's output. */
  async function agent(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    let verified = false;
    try {
      new Webhook(webhookSecret || "whsec_AAAA").verify(body, req.headers as Record<string, string>);
      verified = true;
    } catch {
      verified = false;
    }
    const payload = JSON.parse(body) as { task: string };
    deliveries.push({ task: payload.task, verified });
    if (!verified) return void res.writeHead(401).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ output: { findings: [`done: ${payload.task}`] } }));
  }

  const index = () => catchUp({ tables: env.services.tables, chain: env.services.chain, logger: env.services.logger, fromBlock: env.deployBlock, confirmations: 0 });

  const execute = (agentId: string, task: string, path = "/v1/execute") =>
    app.request(path, { method: "POST", headers: { authorization: `Bearer ${renterKey}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agentId, task }) });

  const runCount = async () => ((await (await app.request(`/v1/listings/${listing.listing_id}`, { headers: { authorization: `Bearer ${renterKey}` } })).json()) as { run_count: number }).run_count;

  beforeAll(async () => {
    const awsEndpoint = inject("awsEndpoint");
    const suffix = randomBytes(4).toString("hex");
    [agentServer, node] = await Promise.all([startHttpsServer((req, res) => void agent(req, res)), freePort().then((port) => startChain({ port }))]);
    // Registration goes through the queue and the bucket: this file's own, on the shared emulator.
    const queues = await ensureRegistrationQueues(createQueue({ region: "us-east-1", endpoint: awsEndpoint }), { queue: `registration-${suffix}`, dlq: `registration-dlq-${suffix}` });
    env = await createServicesOn({
      rpcUrl: node.rpcUrl,
      dynamoEndpoint: inject("dynamoEndpoint"),
      env: { AWS_ENDPOINT: awsEndpoint, REGISTRATION_QUEUE_URL: queues.queueUrl, REGISTRATION_DLQ_URL: queues.dlqUrl, ALLOW_PRIVATE_AGENT_HOSTS: "true" },
    });
    await ensureBucket(createBlobs({ region: env.config.AWS_REGION, bucket: env.config.BLOB_BUCKET, endpoint: awsEndpoint }).client, env.config.BLOB_BUCKET);
    env.services.egress = createEgressGuard({ ca: agentServer.ca, allowHosts: ["127.0.0.1"] });
    app = buildApp(env.services);
    // The support helpers that take a TestContext use its services and its authority only.
    const ctx: TestContext = { config: env.config, services: env.services, env: {}, authority: env.authority, treasury: env.treasury };

    [creator, renter] = await Promise.all([fundAccount(node.rpcUrl), fundAccount(node.rpcUrl)]);
    const creatorToken = (await signIn(app, creator)).token;
    await approveCreator(ctx, app, creator.address, creatorToken);

    // Publish a connected agent: registration through the API and the queue's consumer, the creator's
    // createListing (subscription) on this node, the authority's approval, and its webhook secret.
    const registered = await app.request("/v1/agents", {
      method: "POST",
      headers: { authorization: `Bearer ${creatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "expiring-agent",
        category: "research",
        description: "A connected test agent rented by subscription",
        model: { provider: "provider_a", model: "m" },
        entrypoint_url: `${agentServer.url}/agent`,
        input_schema: { type: "object" },
        output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
        timeout_seconds: 10,
      }),
    });
    expect(registered.status, await registered.clone().text()).toBe(202);
    const { job_id } = (await registered.json()) as { job_id: string };
    await processRegistrationMessage(env.services, JSON.stringify({ job_id }));
    const job = (await (await app.request(`/v1/jobs/${job_id}`, { headers: { authorization: `Bearer ${creatorToken}` } })).json()) as { status: string; result?: Registered; error?: unknown };
    expect(job.status, JSON.stringify(job.error)).toBe("completed");
    const result = job.result!;
    const created = await env.market.createListing(creator, { accessType: "subscription", price: PRICE, uri: result.metadata_uri, seed: result.listing_seed });
    listing = { ...result, onChainId: created.listingId };
    expect(listing.listing_id).toBe(`lst_${created.listingId.slice(2)}`);
    await reviewListing(env.services.tables, listing.listing_id, "approve", undefined);
    const secret = await app.request(`/v1/listings/${listing.listing_id}/webhook-secret`, { method: "POST", headers: { authorization: `Bearer ${creatorToken}` } });
    expect(secret.status).toBe(201);
    webhookSecret = ((await secret.json()) as { webhook_secret: string }).webhook_secret;

    // The renter buys 30 days and gets an API key; the index catches up with the listing and purchase.
    purchase = await env.market.purchaseSubscription(renter, listing.onChainId, DAYS_30);
    expiresAt = purchase.blockTime + Number(DAYS_30);
    await index();
    renterKey = (await createKey(app, renter, (await signIn(app, renter)).token)).key;
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([node?.stop(), agentServer?.stop(), env?.services.close()]);
  });

  it("admits the live subscription: the access check resolves and a run reaches the agent", async () => {
    const credential = await readChainCredential(env.services.chain, listing.onChainId, renter.address);
    expect(credential).toMatchObject({ status: "active", rentalModel: "subscription", expiresAt });
    for (const id of [listing.agent_id, listing.listing_id, listing.onChainId]) {
      await expect(checkExecutionAccess(env.services, renter.address, id)).resolves.toMatchObject({
        listingId: listing.listing_id,
        onChainId: listing.onChainId,
        rentalModel: "subscription",
        priceWei: PRICE,
        balanceWei: 0n,
      });
    }
    const res = await execute(listing.agent_id, "before the expiry");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ agent_id: listing.agent_id, status: "completed", cost_wei: 0, output: { findings: ["done: before the expiry"] } });
    expect(deliveries).toEqual([{ task: "before the expiry", verified: true }]);
    expect(await runCount()).toBe(1);
  });

  it("still admits a minute before the expiry", async () => {
    const test = createTestClient({ mode: "hardhat", transport: http(node.rpcUrl) });
    await test.setNextBlockTimestamp({ timestamp: BigInt(expiresAt - 60) });
    await test.mine({ blocks: 1 });
    expect(await env.market.credentialStatus(listing.onChainId, renter.address)).toBe(1);
    await expect(checkExecutionAccess(env.services, renter.address, listing.agent_id)).resolves.toMatchObject({ rentalModel: "subscription" });
  });

  describe("once chain time passes the expiry", () => {
    beforeAll(async () => {
      const test = createTestClient({ mode: "hardhat", transport: http(node.rpcUrl) });
      await test.setNextBlockTimestamp({ timestamp: BigInt(expiresAt + 1) });
      await test.mine({ blocks: 1 });
      const latest = await env.market.client.getBlock();
      expect(Number(latest.timestamp)).toBeGreaterThan(expiresAt);
      // The contract itself now calls the credential expired.
      expect(await env.market.credentialStatus(listing.onChainId, renter.address)).toBe(CHAIN_EXPIRED);
    });

    it("the access check refuses with credential_expired (403), by every id", async () => {
      for (const id of [listing.agent_id, listing.listing_id, listing.onChainId]) {
        const error = await checkExecutionAccess(env.services, renter.address, id).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        const apiError = error as ApiError;
        expect(apiError.code).toBe("credential_expired");
        expect(apiError.status).toBe(403);
        // no contract custom error means "expired" (the contract reports it as a status)
        expect(apiError.onChainError).toBeUndefined();
        expect(apiError.message).toMatch(/expired/i);
        expect(apiError.message).toContain("renewSubscription");
      }
    });

    it("POST /v1/execute answers 403 credential_expired in the error envelope, and nothing reaches the agent", async () => {
      const before = deliveries.length;
      for (const id of [listing.agent_id, listing.listing_id]) {
        const res = await execute(id, "after the expiry");
        expect(res.status).toBe(403);
        expect(res.headers.get("content-type")).toContain("application/json");
        const body = (await res.json()) as ErrorEnvelope;
        expect(Object.keys(body)).toEqual(["error"]);
        expect(Object.keys(body.error).sort()).toEqual(["code", "message", "request_id", "status"]);
        expect(body.error).toMatchObject({ code: "credential_expired", status: 403 });
        expect(body.error.message).toContain("renewSubscription");
        expect(body.error.request_id).toMatch(/\S/);
        expect(res.headers.get("x-request-id")).toBe(body.error.request_id);
      }
      expect(deliveries.length).toBe(before);
      expect(await runCount()).toBe(1);
    });

    it("POST /v1/execute/stream refuses the same way before the stream opens", async () => {
      const before = deliveries.length;
      const res = await execute(listing.agent_id, "stream after the expiry", "/v1/execute/stream");
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/json");
      const error = ((await res.json()) as ErrorEnvelope).error;
      expect(error).toMatchObject({ code: "credential_expired", status: 403 });
      expect(error.on_chain_error).toBeUndefined();
      expect(deliveries.length).toBe(before);
      expect(await runCount()).toBe(1);
    });
  });
});
