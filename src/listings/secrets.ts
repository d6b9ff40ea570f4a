// A listing's secrets, set by its creator: the model-provider key of a declarative agent, and the
// webhook signing secret of a connected agent (Standard Webhooks, `whsec_` + base64). Each is sealed
// under a data key of its own, bound to the listing and the purpose, and stored as a blob; only the
// wrapped data key and the time it was set sit in the agent record. Neither is ever returned after it
// is set, nor logged.
import { createHash, randomBytes } from "node:crypto";
import type { Address } from "viem";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { parseListingId, toListingId } from "./ids.ts";
import { AgentNotFoundError, getAgent, setAgentSecret } from "./listing.store.ts";
import { open, seal } from "../registration/sealed.ts";
import { processCache } from "../cache.ts";

type SecretKind = "provider_key" | "webhook_secret";

async function ownAgent(services: Services, listingIdParam: string, wallet: Address): Promise<{ onChainId: `0x${string}`; listingId: string; kind: string; provider?: string }> {
  const onChainId = parseListingId(listingIdParam);
  const agent = await getAgent(services.tables, onChainId, { consistent: true });
  // Another creator's listing is as unknown as a missing one.
  if (!agent || agent.creator !== wallet.toLowerCase()) throw new ApiError("listing_not_found", `No agent of yours at listing ${listingIdParam}.`);
  return { onChainId, listingId: toListingId(onChainId), kind: agent.kind as string };
}

async function store(services: Services, onChainId: `0x${string}`, listingId: string, kind: SecretKind, value: string): Promise<string> {
  const context = { purpose: kind, listing_id: listingId };
  const dataKey = await services.keys.generateDataKey(context);
  // Named after its own wrapped key, so two concurrent settings never pair one's key with the other's blob.
  const blob = `agents/${listingId}/${kind}-${createHash("sha256").update(dataKey.wrapped).digest("hex").slice(0, 24)}.sealed`;
  await services.blobs.put(blob, seal(dataKey.plaintext, Buffer.from(value, "utf8"), `${kind}:${listingId}`), "application/octet-stream");
  dataKey.plaintext.fill(0);
  const now = new Date().toISOString();
  try {
    await setAgentSecret(services.tables, onChainId, kind, { wrapped: dataKey.wrapped, blob, setAt: now });
  } catch (error) {
    if (error instanceof AgentNotFoundError) throw new ApiError("listing_not_found", `No agent at listing ${listingId}.`);
    throw error;
  }
  return now;
}

/** Sets (or replaces) a declarative agent's model-provider key. */
export async function setProviderKey(services: Services, wallet: Address, listingIdParam: string, providerKey: string): Promise<{ listing_id: string; provider_key_set: true; updated_at: string }> {
  const agent = await ownAgent(services, listingIdParam, wallet);
  if (agent.kind !== "declarative") throw new ApiError("invalid_request", "A connected agent runs on its creator's side: the service holds no model credentials for it.");
  if (!/^[\x21-\x7e]{8,512}$/.test(providerKey)) throw new ApiError("invalid_request", "provider_key must be 8 to 512 printable characters without spaces.");
  const updated_at = await store(services, agent.onChainId, agent.listingId, "provider_key", providerKey);
  return { listing_id: agent.listingId, provider_key_set: true, updated_at };
}

/** Creates (or rotates) a connected agent's webhook signing secret; returned this once. */
export async function rotateWebhookSecret(services: Services, wallet: Address, listingIdParam: string): Promise<{ listing_id: string; webhook_secret: string; created_at: string }> {
  const agent = await ownAgent(services, listingIdParam, wallet);
  if (agent.kind !== "connected") throw new ApiError("invalid_request", "Only a connected agent (entrypoint_url) receives signed webhooks.");
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const created_at = await store(services, agent.onChainId, agent.listingId, "webhook_secret", secret);
  return { listing_id: agent.listingId, webhook_secret: secret, created_at };
}

// Sealed secrets are kept in the process by blob name: a name is derived from the secret's own wrapped
// data key, so it never names other content (a new key or secret is a new name). Only ciphertext is
// kept; the secret is opened for each run that needs it and for nothing else.
const sealedBlobs = processCache<Uint8Array>(512);

async function sealedBlob(services: Services, name: string, immutable: boolean): Promise<Uint8Array | null> {
  const hit = sealedBlobs.get(services.blobs, name);
  if (hit) return hit;
  const bytes = await services.blobs.get(name);
  if (bytes && immutable) sealedBlobs.set(services.blobs, name, bytes);
  return bytes ?? null;
}

/**
 * The runtime's read of a listing secret (the run that needs it, and nothing else, calls this).
 * `agent` is the agent record the caller has just read (the execution access check): when it names the
 * secret, the record is not read again. When it names none (a secret set a moment ago may not have
 * reached an eventually consistent read yet), the record is read consistently before the answer is "none".
 */
export async function readListingSecret(services: Services, listingId: string, kind: SecretKind, agent?: Record<string, unknown>): Promise<string | null> {
  const onChainId = parseListingId(listingId);
  let item = agent?.[`${kind}_wrapped`] ? agent : undefined;
  if (!item) {
    item = (await getAgent(services.tables, onChainId, { consistent: true })) ?? undefined;
  }
  const wrapped = item?.[`${kind}_wrapped`] as string | undefined;
  if (!wrapped) return null;
  const named = item?.[`${kind}_blob`] as string | undefined;
  const sealed = await sealedBlob(services, named ?? `agents/${listingId}/${kind}.sealed`, named !== undefined);
  if (!sealed) return null;
  const key = await services.keys.unwrap(wrapped, { purpose: kind, listing_id: listingId });
  try {
    return Buffer.from(open(key, sealed, `${kind}:${listingId}`)).toString("utf8");
  } finally {
    key.fill(0);
  }
}
