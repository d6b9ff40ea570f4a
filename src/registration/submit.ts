// POST /v1/agents: the synchronous part of registration. What a request shows at once (not JSON,
// over 64 KB) is refused here; everything else is the validator's, on the queue. The manifest holds
// creator-private parts (the prompt), so it is sealed before it is stored.
import type { Address } from "viem";
import type { Services } from "./services.ts";
import type { Market } from "../chain/client.ts";
import { ApiError } from "../errors.ts";
import { checkManifestSize, MANIFEST_MAX_BYTES } from "@agent-rental/core/manifest";
import { newJobId, putQueuedJob } from "./jobs.ts";
import { seal } from "./sealed.ts";
import { requireApprovedCreator } from "../creators/creators.ts";

/** `market` "token": the agent is listed on the TokenMarketplace (priced in a token), so its listing id is
 * that contract's; the service must know the TokenMarketplace. */
export async function submitRegistration(services: Services, wallet: Address, rawBody: string, options: { market?: Market } = {}): Promise<{ job_id: string; status: "queued" }> {
  await requireApprovedCreator(services.tables, wallet);
  if (options.market === "token" && !services.chain.tokenMarketplace) throw new ApiError("invalid_request", "market=token: this service lists no agents priced in tokens (no TokenMarketplace is configured).");
  const size = checkManifestSize(rawBody);
  if (!size.ok) throw new ApiError("payload_too_large", `The manifest is ${size.bytes} bytes; the limit is ${MANIFEST_MAX_BYTES} bytes (64 KB).`);
  try {
    JSON.parse(rawBody);
  } catch {
    throw new ApiError("invalid_request", "The manifest is not valid JSON.");
  }
  const jobId = newJobId();
  const context = { purpose: "manifest", job_id: jobId };
  const dataKey = await services.keys.generateDataKey(context);
  const blobKey = `jobs/${jobId}/manifest.sealed`;
  await services.blobs.put(blobKey, seal(dataKey.plaintext, Buffer.from(rawBody, "utf8"), `manifest:${jobId}`), "application/octet-stream");
  dataKey.plaintext.fill(0);
  await putQueuedJob(services.tables, { job_id: jobId, wallet: wallet.toLowerCase(), created_at: new Date().toISOString(), manifest_blob: blobKey, manifest_key: dataKey.wrapped, ...(options.market === "token" ? { market: "token" as const } : {}) });
  try {
    await services.queue.send(services.config.REGISTRATION_QUEUE_URL, JSON.stringify({ job_id: jobId }));
  } catch (error) {
    // The job is stored: the sweeper re-enqueues it, so the creator's request still succeeds.
    services.logger.warn("registration enqueue failed; the sweeper will retry", { job_id: jobId, cause: error instanceof Error ? error.message : String(error) });
  }
  return { job_id: jobId, status: "queued" };
}
