// The registration queue's consumer: validates a queued manifest and, when it passes, publishes the
// listing's public metadata content-addressed, seals the agent logic under the listing's own data
// key, records the agent, and completes the job. Every step is idempotent, so a redelivered message
// never registers an agent twice in effect; a message that keeps failing ends in the dead-letter
// queue, whose consumer fails the job (it never stays queued).
import { createHash } from "node:crypto";
import { encodePacked, getAddress, keccak256, toHex, type Address } from "viem";
import type { Services } from "./services.ts";
import type { Market } from "../chain/client.ts";
import { toListingId } from "../listings/ids.ts";
import { canonicalJson, cidOf } from "./cid.ts";
import { finishJob, getJob, listStaleQueuedJobs, markEnqueued, type JobResult } from "./jobs.ts";
import { publicMetadata, validateManifest, type AgentManifest, type ManifestError } from "@agent-rental/core/manifest";
import { checkManifestPatterns } from "./pattern-safety.ts";
import { open, seal } from "./sealed.ts";
import { enqueueListingReview } from "../listings/reviews.ts";
import { getAgent, putAgent, putAgentAlias } from "../listings/listing.store.ts";

export interface RegistrationMessage {
  job_id: string;
}

function parseMessage(body: string): RegistrationMessage | null {
  try {
    const value = JSON.parse(body) as { job_id?: unknown };
    return typeof value.job_id === "string" && /^job_[0-9a-f]{24}$/.test(value.job_id) ? { job_id: value.job_id } : null;
  } catch {
    return null;
  }
}

/** The TokenMarketplace's LISTING_ID_DOMAIN: a token listing's id hashes it before the creator and seed. */
export const TOKEN_LISTING_ID_DOMAIN = keccak256(toHex("agent-rental.token-listing"));

/** The listing a job registers: its seed is derived from the job, so a retry derives the same one. On the
 * token marketplace the id is that contract's listingIdOf (the domain, the creator, the seed). */
export function listingOfJob(jobId: string, creator: Address, market: Market = "eth"): { seed: `0x${string}`; onChainId: `0x${string}`; listingId: string } {
  const seed = keccak256(toHex(`registration:${jobId}`));
  const onChainId =
    market === "token"
      ? keccak256(encodePacked(["bytes32", "address", "bytes32"], [TOKEN_LISTING_ID_DOMAIN, getAddress(creator), seed]))
      : keccak256(encodePacked(["address", "bytes32"], [getAddress(creator), seed]));
  return { seed, onChainId, listingId: toListingId(onChainId) };
}

export async function processRegistrationMessage(services: Services, body: string): Promise<void> {
  const message = parseMessage(body);
  if (!message) {
    services.logger.warn("registration message ignored: not a job reference");
    return;
  }
  const job = await getJob(services.tables, message.job_id);
  if (!job || job.status !== "queued") return;

  const dataKey = await services.keys.unwrap(job.manifest_key, { purpose: "manifest", job_id: job.job_id });
  const sealed = await services.blobs.get(job.manifest_blob);
  if (!sealed) throw new Error(`sealed manifest missing for ${job.job_id}`);
  const raw = Buffer.from(open(dataKey, sealed, `manifest:${job.job_id}`)).toString("utf8");
  dataKey.fill(0);

  const validation = validateManifest(JSON.parse(raw) as unknown, { allowPrivateHosts: services.config.ALLOW_PRIVATE_AGENT_HOSTS });
  // The backtracking check runs only on a manifest that passed every other rule: it is the slow one.
  const errors: ManifestError[] = validation.ok ? await checkManifestPatterns(validation.manifest) : validation.errors;
  if (!validation.ok || errors.length > 0) {
    await finishJob(services.tables, job.job_id, {
      status: "failed",
      error: { code: "invalid_manifest", message: `The manifest was rejected: ${errors.length} problem(s).`, details: errors },
    });
    return;
  }
  const result = await registerAgent(services, job.job_id, job.wallet as Address, validation.manifest, job.market ?? "eth");
  await finishJob(services.tables, job.job_id, { status: "completed", result });
}

async function registerAgent(services: Services, jobId: string, creator: Address, manifest: AgentManifest, market: Market): Promise<JobResult> {
  const { seed, onChainId, listingId } = listingOfJob(jobId, creator, market);
  const agentId = `${manifest.name}-${onChainId.slice(2, 10)}`;

  // Public metadata, content-addressed: the same document always lands at the same address.
  const metadata = Buffer.from(canonicalJson(publicMetadata(manifest)), "utf8");
  const cid = cidOf(metadata);
  await services.blobs.put(`ipfs/${cid}`, metadata, "application/json");

  // The agent logic, sealed under the listing's own data key.
  const context = { purpose: "agent_logic", listing_id: listingId };
  const dataKey = await services.keys.generateDataKey(context);
  // The blob is named after its own wrapped key: two deliveries processing one job at once each write
  // their own blob, and the record (first writer wins) names the blob its key opens.
  const logicBlob = `agents/${listingId}/logic-${createHash("sha256").update(dataKey.wrapped).digest("hex").slice(0, 24)}.sealed`;
  await services.blobs.put(logicBlob, seal(dataKey.plaintext, Buffer.from(JSON.stringify(manifest), "utf8"), `agent_logic:${listingId}`), "application/octet-stream");
  dataKey.plaintext.fill(0);

  const createdAt = new Date().toISOString();
  // A redelivered message finds its own agent already recorded and keeps it (putAgent: first writer wins).
  await putAgent(services.tables, onChainId, {
    listing_id: listingId,
    agent_id: agentId,
    creator: creator.toLowerCase(),
    name: manifest.name,
    description: manifest.description,
    category: manifest.category,
    kind: manifest.system_prompt !== undefined ? "declarative" : "connected",
    metadata_uri: `ipfs://${cid}`,
    // One to three, each matching the output schema: its `examples`, or one generated (manifest.ts).
    sample_output: manifest.sample_output ?? [],
    listing_seed: seed,
    logic_blob: logicBlob,
    logic_key: dataKey.wrapped,
    review_status: "pending",
    job_id: jobId,
    created_at: createdAt,
  });
  // Idempotent writes, repeated by a redelivery that follows a crash: the review queue item (keyed
  // by the recorded creation time) and the agent_id alias execute requests may name.
  const recorded = await getAgent(services.tables, onChainId, { consistent: true });
  if (recorded?.review_status === "pending") await enqueueListingReview(services.tables, listingId, recorded.created_at);
  await putAgentAlias(services.tables, agentId, listingId);
  return { agent_id: agentId, listing_id: listingId, listing_seed: seed, metadata_uri: `ipfs://${cid}`, ...(market === "token" ? { market } : {}) };
}

/** The dead-letter queue's consumer: a manifest that crashed the validator on every delivery fails
 * its job with an error, so no job stays queued. */
export async function failDeadLetter(services: Services, body: string): Promise<void> {
  const message = parseMessage(body);
  if (!message) return;
  await finishJob(services.tables, message.job_id, {
    status: "failed",
    error: { code: "processing_failed", message: "The manifest could not be processed. Submit it again; if it fails again, contact support with the job id." },
  });
}

/** Re-enqueues jobs left queued (their message was lost) for longer than `olderThanMs`. */
export async function sweepQueuedJobs(services: Services, olderThanMs = 5 * 60_000): Promise<number> {
  const stale = await listStaleQueuedJobs(services.tables, new Date(Date.now() - olderThanMs));
  for (const job of stale) {
    await services.queue.send(services.config.REGISTRATION_QUEUE_URL, JSON.stringify({ job_id: job.job_id }));
    await markEnqueued(services.tables, job.job_id);
  }
  return stale.length;
}
