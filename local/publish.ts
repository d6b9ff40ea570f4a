// Publishing an agent the way a creator's agent reaches the marketplace, for the local demo, the tests
// and the benchmarks alike: the creator approved, the manifest through the registration pipeline (the
// submission POST /v1/agents makes, then the registration worker's processing), the listing created
// on-chain by the creator, its review approved, and the index caught up with the chain.
import type { Account, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Services } from "../src/services.ts";
import type { MarketplaceTarget } from "../src/chain/write.ts";
import type { Market } from "../src/chain/client.ts";
import { writeMarketplace } from "../src/chain/write.ts";
import { applyAsCreator, reviewCreator } from "../src/creators/creators.ts";
import { reviewListing } from "../src/listings/reviews.ts";
import { rotateWebhookSecret, setProviderKey } from "../src/listings/secrets.ts";
import { submitRegistration } from "../src/registration/submit.ts";
import { processRegistrationMessage } from "../src/registration/process.ts";
import { getJob, type JobResult } from "../src/registration/jobs.ts";
import { runJob } from "../src/jobs.ts";
import { ACCESS_TYPE, type RentalModel } from "@agent-rental/core/vocabulary";

/** A creator's signer: a private key or an account (it sends createListing). */
export type CreatorSigner = Hex | Account;

/** What registration gave the agent: its ids, and what createListing takes. */
export type RegisteredAgent = JobResult;

export interface PublishedAgent extends RegisteredAgent {
  /** The listing's id on-chain (the listing id without its `lst_` prefix). */
  onChainId: Hex;
  rental: RentalModel;
  priceWei: bigint;
}

/** The marketplace the service is configured with, as a transaction target. */
export function marketTargetOf(services: Services): MarketplaceTarget {
  return { rpcUrl: services.config.RPC_URL, chain: services.chain.chain, marketplace: services.chain.marketplace };
}

/** The listing's on-chain id from its listing id. */
export const onChainIdOf = (listingId: string): Hex => `0x${listingId.slice("lst_".length)}` as Hex;

/** Applies as a creator and approves the application (what the protocol authority's review does). */
export async function approveCreator(services: Services, wallet: string, displayName: string): Promise<void> {
  await applyAsCreator(services.tables, wallet, displayName);
  await reviewCreator(services.tables, wallet, "approve", undefined);
}

/** Registers `manifest` for `wallet` (an approved creator) and processes the job at once, as the
 * registration worker does (processing is idempotent: the worker's later delivery changes nothing).
 * `market` "token": to be listed on the TokenMarketplace (POST /v1/agents?market=token). */
export async function registerAgent(services: Services, wallet: Hex, manifest: Record<string, unknown>, market: Market = "eth"): Promise<RegisteredAgent> {
  const { job_id } = await submitRegistration(services, wallet, JSON.stringify(manifest), market === "token" ? { market } : {});
  await processRegistrationMessage(services, JSON.stringify({ job_id }));
  const job = await getJob(services.tables, job_id);
  if (job?.status !== "completed" || !job.result) throw new Error(`agent ${String(manifest.name)} did not register: ${JSON.stringify(job?.error ?? job?.status)}`);
  return job.result;
}

/** The creator's createListing of a registered agent, at `priceWei` under `rental`. */
export async function listAgent(target: MarketplaceTarget, creator: CreatorSigner, agent: RegisteredAgent, rental: RentalModel, priceWei: bigint): Promise<void> {
  await writeMarketplace(target, creator, "createListing", [agent.listing_seed, ACCESS_TYPE[rental], priceWei, agent.metadata_uri]);
}

export interface PublishOptions {
  rental: RentalModel;
  priceWei: bigint;
  /** Where createListing is sent (default: the marketplace the services are configured with). */
  target?: MarketplaceTarget;
  /** A declarative agent's model-provider key, set once it is listed. */
  providerKey?: string;
}

/**
 * Registers, lists and approves an agent of `creator` (an approved creator), then catches the index up
 * so that the agent can be rented at once. A connected agent (one with an `entrypoint_url`) also gets its
 * webhook signing secret, returned as `webhookSecret`.
 *
 * @example
 * const agent = await publishAgent(services, creatorKey, manifest, { rental: "per_query", priceWei: parseEther("0.001") });
 */
export async function publishAgent(
  services: Services,
  creator: CreatorSigner,
  manifest: Record<string, unknown>,
  options: PublishOptions,
): Promise<PublishedAgent & { webhookSecret?: string }> {
  const wallet = typeof creator === "string" ? privateKeyToAccount(creator).address : creator.address;
  const registered = await registerAgent(services, wallet, manifest);
  await listAgent(options.target ?? marketTargetOf(services), creator, registered, options.rental, options.priceWei);
  await reviewListing(services.tables, registered.listing_id, "approve", undefined);
  if (options.providerKey !== undefined) await setProviderKey(services, wallet, registered.listing_id, options.providerKey);
  const webhookSecret = typeof manifest.entrypoint_url === "string" ? (await rotateWebhookSecret(services, wallet, registered.listing_id)).webhook_secret : undefined;
  await runJob(services, "indexer");
  return { ...registered, onChainId: onChainIdOf(registered.listing_id), rental: options.rental, priceWei: options.priceWei, ...(webhookSecret === undefined ? {} : { webhookSecret }) };
}
