// Publishing agents for tests, through the real pipeline: registration (API + queue consumer), the
// creator's createListing on-chain, the authority's review, and the index catching up.
import type { Hono } from "hono";
import type { Hex } from "viem";
import { parseEther } from "viem";
import { inject } from "vitest";
import type { PrivateKeyAccount } from "viem/accounts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { chainFor } from "../../src/chain/client.ts";
import { catchUp } from "../../src/credentials/indexer.ts";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { reviewListing } from "../../src/listings/reviews.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import type { TestContext } from "./services.ts";
import { signIn } from "./auth.ts";
import { ACCESS_TYPE, type RentalModel } from "@agent-rental/core/vocabulary";

type AppLike = Pick<Hono, "request">;

export interface PublishedAgent {
  listing_id: string;
  agent_id: string;
  listing_seed: Hex;
  metadata_uri: string;
  onChainId: Hex;
  priceWei: bigint;
}

export function marketTarget(ctx: TestContext) {
  const rpcUrl = inject("rpcUrl");
  return { rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, rpcUrl), marketplace: ctx.config.MARKETPLACE_ADDRESS as Hex };
}

export async function indexChain(ctx: TestContext): Promise<void> {
  await catchUp({ tables: ctx.services.tables, chain: ctx.services.chain, logger: ctx.services.logger, fromBlock: 0n, confirmations: 0 });
}

/** Registers `manifest` as `creator` (an approved creator), lists it on-chain and approves it. A suite
 * that publishes many agents passes the creator's `token` (sign-in is limited per client). */
export async function publishAgent(ctx: TestContext, app: AppLike, creator: PrivateKeyAccount & { privateKey: Hex }, manifest: Record<string, unknown>, rental: RentalModel, priceEth = "0.001", creatorToken?: string): Promise<PublishedAgent> {
  const token = creatorToken ?? (await signIn(app, creator)).token;
  const res = await app.request("/v1/agents", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(manifest) });
  if (res.status !== 202) throw new Error(`registration refused: ${res.status} ${await res.text()}`);
  const { job_id } = (await res.json()) as { job_id: string };
  await processRegistrationMessage(ctx.services, JSON.stringify({ job_id }));
  const job = (await (await app.request(`/v1/jobs/${job_id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { status: string; result?: Omit<PublishedAgent, "onChainId" | "priceWei">; error?: unknown };
  if (job.status !== "completed" || !job.result) throw new Error(`registration failed: ${JSON.stringify(job.error)}`);
  const priceWei = parseEther(priceEth);
  await writeMarketplace(marketTarget(ctx), creator, "createListing", [job.result.listing_seed, ACCESS_TYPE[rental], priceWei, job.result.metadata_uri]);
  await reviewListing(ctx.services.tables, job.result.listing_id, "approve", undefined);
  await indexChain(ctx);
  return { ...job.result, onChainId: `0x${job.result.listing_id.slice(4)}` as Hex, priceWei };
}

/** publishAgent for a connected agent, then its webhook signing secret created (what the agent checks
 * each delivery's signature with). */
export async function publishConnectedAgent(
  ctx: TestContext,
  app: AppLike,
  creator: PrivateKeyAccount & { privateKey: Hex },
  manifest: Record<string, unknown>,
  rental: RentalModel,
  priceEth = "0.001",
  creatorToken?: string,
): Promise<PublishedAgent & { webhookSecret: string }> {
  const token = creatorToken ?? (await signIn(app, creator)).token;
  const published = await publishAgent(ctx, app, creator, manifest, rental, priceEth, token);
  const res = await app.request(`/v1/listings/${published.listing_id}/webhook-secret`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 201) throw new Error(`webhook secret refused: ${res.status} ${await res.text()}`);
  return { ...published, webhookSecret: ((await res.json()) as { webhook_secret: string }).webhook_secret };
}
