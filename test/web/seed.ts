// What a journey needs to exist before it starts, made the way users make it: through the public API
// (sign-in, creator applications, registrations, reviews, runs, ratings) and real transactions on the
// local chain. Nothing is written behind the API's back.
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { RunningStack } from "../../local/stack.ts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { DEMO_PROVIDER_KEY } from "../../local/demo.ts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { until } from "../support/until.ts";
import { fetchWaitingOut429 } from "../support/http.ts";
import { ACCESS_TYPE } from "@agent-rental/core/vocabulary";

/** The protocol authority of the local stack (the first development account). */
export const AUTHORITY_KEY = DEV_ACCOUNTS[0]!.privateKey as Hex;

export type RentalModel = keyof typeof ACCESS_TYPE;

export function onChainId(listingId: string): Hex {
  return `0x${listingId.slice(4)}` as Hex;
}

/** A listing the local stack's demo created, as its start describes it. */
export interface DemoListing {
  listing_id: string;
  name: string;
  rental_model: string;
  creator: string;
  metadata_uri?: string;
}

/** The demo's listings (stack.info.demo.listings). */
export function demoListings(stack: RunningStack): DemoListing[] {
  return stack.info.demo.listings as DemoListing[];
}

/** A JSON client of the stack's API for one wallet, signed in through the challenge and a signature. */
export async function apiAs(stack: RunningStack, privateKey: Hex) {
  const account = privateKeyToAccount(privateKey);
  const base = stack.info.api_url;
  const challenge = (await (await fetch(`${base}/v1/auth/challenge?wallet=${account.address}`)).json()) as { challenge: string };
  const signature = await account.signMessage({ message: challenge.challenge });
  const signedIn = await fetch(`${base}/v1/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ wallet: account.address, challenge: challenge.challenge, signature }) });
  if (signedIn.status !== 200) throw new Error(`sign-in of ${account.address} answered ${signedIn.status}: ${await signedIn.text()}`);
  const { token } = (await signedIn.json()) as { token: string };
  const call = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> => {
    // The suites' polls share the wallet's 100 requests a minute with everything else sent as it.
    const res = await fetchWaitingOut429(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return { token, address: account.address, get: <T>(path: string) => call<T>("GET", path), post: <T>(path: string, body: unknown, headers?: Record<string, string>) => call<T>("POST", path, body, headers), put: <T>(path: string, body: unknown) => call<T>("PUT", path, body) };
}

/** Viem clients on the stack's chain for one wallet. */
export function chainAs(stack: RunningStack, privateKey: Hex) {
  const chain = chainFor(stack.info.chain_id, stack.info.rpc_url);
  const transport = http(stack.info.rpc_url);
  const pub = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport });
  const marketplace = stack.info.contracts.marketplace as Hex;
  /** Sends a marketplace transaction and waits until it is mined successfully. */
  const write = async (functionName: string, args: readonly unknown[], value?: bigint) => {
    const hash = await wallet.writeContract({ address: marketplace, abi: marketplaceAbi, functionName, args, ...(value !== undefined ? { value } : {}) } as never);
    const receipt = await pub.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted (${hash})`);
    return hash;
  };
  return { pub, wallet, marketplace, write };
}

/** A fresh wallet funded with ETH by a development account. */
export async function fundedWallet(stack: RunningStack, eth = "1"): Promise<Hex> {
  const key = generatePrivateKey();
  const { pub, wallet } = chainAs(stack, DEV_ACCOUNTS[1]!.privateKey as Hex);
  const hash = await wallet.sendTransaction({ to: privateKeyToAccount(key).address, value: parseEther(eth) });
  await pub.waitForTransactionReceipt({ hash });
  return key;
}

/** A creator application, approved by the authority unless told otherwise. */
export async function approvedCreator(stack: RunningStack, privateKey: Hex, displayName: string): Promise<void> {
  const creator = await apiAs(stack, privateKey);
  await creator.post("/v1/creators", { display_name: displayName });
  const authority = await apiAs(stack, AUTHORITY_KEY);
  await authority.post(`/v1/reviews/creators/${creator.address}`, { decision: "approve" });
}

/** A manifest of a small declarative agent that the local model server answers. */
export function manifestOf(name: string, options: { category?: string; description?: string; examples?: unknown[] } = {}) {
  return {
    name,
    category: options.category ?? "research",
    description: options.description ?? `The ${name.replace(/-/g, " ")}: a short brief on any topic.`,
    model: { provider: "provider_a", model: "gpt-4o-mini" },
    system_prompt: "You write short briefs.",
    input_schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    // Without examples the listing's sample output is generated from this schema.
    output_schema: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"], ...(options.examples ? { examples: options.examples } : {}) },
    timeout_seconds: 60,
  };
}

/**
 * Registers an agent as an approved creator (POST /v1/agents, the job followed to its end), sets the
 * model-provider key the local model server expects, and creates its listing on-chain. With
 * `approve`, the authority approves it and it is published.
 */
export async function registeredListing(stack: RunningStack, creatorKey: Hex, manifest: Record<string, unknown>, terms: { model: RentalModel; priceEth: string; approve?: boolean }): Promise<string> {
  const creator = await apiAs(stack, creatorKey);
  const { job_id } = await creator.post<{ job_id: string }>("/v1/agents", manifest);
  let job: { status: string; result?: { listing_id: string; listing_seed: Hex; metadata_uri: string }; error?: unknown } = { status: "queued" };
  await until(`job ${job_id}`, async () => (job = await creator.get<typeof job>(`/v1/jobs/${job_id}`)).status !== "queued");
  if (job.status !== "completed") throw new Error(`the registration of ${String(manifest.name)} failed: ${JSON.stringify(job.error)}`);
  const { listing_id, listing_seed, metadata_uri } = job.result!;
  await creator.put(`/v1/listings/${listing_id}/provider-key`, { provider_key: DEMO_PROVIDER_KEY });
  await chainAs(stack, creatorKey).write("createListing", [listing_seed, ACCESS_TYPE[terms.model], parseEther(terms.priceEth), metadata_uri]);
  if (terms.approve) await (await apiAs(stack, AUTHORITY_KEY)).post(`/v1/reviews/listings/${listing_id}`, { decision: "approve" });
  return listing_id;
}
