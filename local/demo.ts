// Demo data of the local stack, so a newcomer can use the API right after starting:
// - an API key for the first renter account, created through the real flow (a key request signed by
//   the wallet) and kept in the data folder so it survives restarts;
// - two reviewed demo creators with reviewed agents across categories and the three rental models,
//   registered through the real pipeline once (registered agents are kept) and listed on-chain at
//   every start (the chain is fresh at every start; the same creator and seed give the same id);
// - the demo renter's rentals of them: one_time, subscription and per_query.
// - two listings priced in the local tokens, on the TokenMarketplace: a per-task one in USDC (payable by
//   x402: the USDC stand-in implements EIP-3009) and a subscription in Rental Credit (RENT). Registered
//   with market=token and published like the others; nobody rents them, so a renter can try both.
// The demo renters hold both local tokens (USDC stand-in, Rental Credit): the stack mints them at
// deployment (local/stack.ts).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPublicClient, http, parseEther, parseUnits, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Services } from "../src/services.ts";
import { createApiKey, findApiKey, requestApiKey } from "../src/auth/api-keys.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { marketAddress } from "../src/chain/client.ts";
import { createTokenListing } from "./token-listings.ts";
import { writeMarketplace } from "../src/chain/write.ts";
import { reviewListing } from "../src/listings/reviews.ts";
import { readListingSecret, setProviderKey } from "../src/listings/secrets.ts";
import type { RentalModel } from "@agent-rental/core/vocabulary";
import { approveCreator, listAgent, marketTargetOf, onChainIdOf, registerAgent } from "./publish.ts";

/** The model-provider key the demo creators set on their listings; the local model server requires it. */
export const DEMO_PROVIDER_KEY = "sk-local-demo-provider-key";

export interface DemoListing {
  name: string;
  creator: string;
  listing_id: string;
  agent_id: string;
  rental_model: RentalModel;
  /** The price in whole units of `currency` (decision 0165). */
  price_eth: string;
  /** The listing's currency: ETH (the Marketplace) or a local token's symbol (the TokenMarketplace). */
  currency: DemoCurrency;
  listing_seed: Hex;
  metadata_uri: string;
  /** The listing's ERC-8004 agent id, registered at start (the local chain is fresh each time). */
  erc8004_agent_id?: string;
}

export interface DemoData {
  renter: string;
  api_key: string;
  listings: DemoListing[];
}

export type DemoCurrency = "ETH" | "USDC" | "RENT";

interface DemoAgent {
  creatorIndex: 0 | 1;
  rental_model: DemoListing["rental_model"];
  price_eth: string;
  /** Default ETH. */
  currency?: DemoCurrency;
  manifest: Record<string, unknown>;
}

const object = (properties: Record<string, unknown>, required: string[]) => ({ type: "object", properties, required });
const DEMO_AGENTS: DemoAgent[] = [
  {
    creatorIndex: 0,
    rental_model: "one_time",
    price_eth: "0.01",
    manifest: {
      name: "contract-reviewer",
      category: "legal",
      description: "Reviews commercial contracts and lists risky clauses with a suggested rewrite for each.",
      model: { provider: "provider_a", model: "demo-model" },
      system_prompt: "You are a meticulous contract lawyer. List each risky clause, why it is risky, and a fairer rewrite.",
      input_schema: object({ contract: { type: "string" } }, ["contract"]),
      output_schema: { ...object({ findings: { type: "array", items: { type: "string" } } }, ["findings"]), examples: [{ findings: ["Clause 7: unlimited liability for the supplier; cap it at 12 months of fees."] }] },
    },
  },
  {
    creatorIndex: 0,
    rental_model: "subscription",
    price_eth: "0.02",
    manifest: {
      name: "earnings-summarizer",
      category: "finance",
      description: "Summarizes quarterly earnings calls: guidance, margins, risks and notable analyst questions.",
      model: { provider: "provider_b", model: "demo-model" },
      system_prompt: "You are a sell-side analyst. Summarize the call in five bullet points with numbers.",
      input_schema: object({ transcript: { type: "string" } }, ["transcript"]),
      output_schema: { type: "string", examples: ["Revenue +12% y/y; guidance raised; gross margin 61% (-1pt); FX headwind flagged; capex up in H2."] },
    },
  },
  {
    creatorIndex: 1,
    rental_model: "per_query",
    price_eth: "0.001",
    manifest: {
      name: "unit-test-writer",
      category: "coding",
      description: "Writes focused unit tests for a TypeScript function, covering edge cases and failure paths.",
      model: { provider: "provider_a", model: "demo-model" },
      system_prompt: "You write vitest unit tests. Cover edge cases. Output only code.",
      input_schema: object({ source: { type: "string" } }, ["source"]),
      output_schema: { type: "string", examples: ["it('returns 0 for an empty list', () => expect(sum([])).toBe(0));"] },
    },
  },
  {
    creatorIndex: 1,
    rental_model: "per_query",
    price_eth: "0.002",
    manifest: {
      name: "market-researcher",
      category: "research",
      description: "Researches a market: size, growth, main competitors and their positioning, with sources.",
      model: { provider: "provider_b", model: "demo-model" },
      system_prompt: "You are a market research analyst. Be concrete and cite sources.",
      input_schema: object({ market: { type: "string" } }, ["market"]),
      output_schema: { ...object({ findings: { type: "array", items: { type: "string" } } }, ["findings"]), examples: [{ findings: ["EU e-bike market: ~EUR 18bn (2025), ~9% CAGR; leaders: ..."] }] },
    },
  },
  {
    creatorIndex: 0,
    rental_model: "per_query",
    price_eth: "0.25",
    currency: "USDC",
    manifest: {
      name: "sales-email-writer",
      category: "sales",
      description: "Writes a short, specific outbound sales email for a prospect from their company and role.",
      model: { provider: "provider_a", model: "demo-model" },
      system_prompt: "You are an SDR. Write a three-sentence cold email that names one concrete benefit for the prospect's role.",
      input_schema: object({ prospect: { type: "string" } }, ["prospect"]),
      output_schema: { type: "string", examples: ["Hi Dana, teams like yours at Acme cut invoice handling time by half with ..."] },
    },
  },
  {
    creatorIndex: 1,
    rental_model: "subscription",
    price_eth: "20",
    currency: "RENT",
    manifest: {
      name: "blog-post-outliner",
      category: "content",
      description: "Outlines a blog post from a topic: a working title, the sections in order and a key point for each.",
      model: { provider: "provider_b", model: "demo-model" },
      system_prompt: "You are a content strategist. Give a title and five section headings, each with its key point.",
      input_schema: object({ topic: { type: "string" } }, ["topic"]),
      output_schema: { ...object({ sections: { type: "array", items: { type: "string" } } }, ["sections"]), examples: [{ sections: ["Why invoices pile up: the three manual steps every finance team repeats"] }] },
    },
  },
];

/** The demo listings' currencies on the local chain, from the service's tokens (the TOKENS setting). */
function demoToken(services: Services, currency: DemoCurrency): { address: Address; decimals: number } | null {
  if (currency === "ETH") return null;
  const token = services.chain.tokens?.find((t) => t.symbol === currency);
  if (!token) throw new Error(`The demo lists an agent in ${currency}, which the local stack's TOKENS do not name.`);
  return { address: token.address, decimals: token.decimals };
}

async function ensureApiKey(services: Services, renterKey: Hex, saved: Partial<DemoData>): Promise<string> {
  const renter = privateKeyToAccount(renterKey);
  if (saved.api_key && saved.renter === renter.address) {
    const record = await findApiKey(services.tables, saved.api_key);
    if (record && !record.revokedAt) return saved.api_key;
  }
  const request = await requestApiKey(services.tables, services.config.SERVICE_NAME, renter.address, "local demo");
  const signature = await renter.signMessage({ message: request.message });
  return (await createApiKey({ tables: services.tables, chain: services.chain, keyPrefix: services.config.keyPrefix }, renter.address, { nonce: request.nonce, signature })).key;
}

async function ensureRegistered(services: Services, agent: DemoAgent, creator: Hex, saved: DemoListing | undefined): Promise<DemoListing> {
  const account = privateKeyToAccount(creator);
  const currency = agent.currency ?? "ETH";
  if (saved && saved.creator === account.address && (saved.currency ?? "ETH") === currency) return { ...saved, currency };
  // The stack's consumer would take it from the queue; processing here makes the start deterministic.
  const result = await registerAgent(services, account.address, agent.manifest, currency === "ETH" ? "eth" : "token");
  await reviewListing(services.tables, result.listing_id, "approve", undefined);
  return {
    name: String(agent.manifest.name),
    creator: account.address,
    listing_id: result.listing_id,
    agent_id: result.agent_id,
    rental_model: agent.rental_model,
    price_eth: agent.price_eth,
    currency,
    listing_seed: result.listing_seed,
    metadata_uri: result.metadata_uri,
  };
}

/** Everything the demo needs; idempotent across restarts. */
export async function ensureDemoData(services: Services, dataDir: string, keys: { renter: Hex; creators: [Hex, Hex] }): Promise<DemoData> {
  const file = join(dataDir, "demo.json");
  const saved = (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {}) as Partial<DemoData>;
  const api_key = await ensureApiKey(services, keys.renter, saved);

  const names = ["Acme Legal & Finance AI", "Forge Dev Tools"];
  for (const [i, key] of keys.creators.entries()) {
    await approveCreator(services, privateKeyToAccount(key).address, names[i]!);
  }
  const listings: DemoListing[] = [];
  for (const agent of DEMO_AGENTS) {
    listings.push(await ensureRegistered(services, agent, keys.creators[agent.creatorIndex], saved.listings?.find((l) => l.name === agent.manifest.name)));
  }
  for (const [i, listing] of listings.entries()) {
    if ((await readListingSecret(services, listing.listing_id, "provider_key")) !== DEMO_PROVIDER_KEY) {
      await setProviderKey(services, privateKeyToAccount(keys.creators[DEMO_AGENTS[i]!.creatorIndex]).address, listing.listing_id, DEMO_PROVIDER_KEY);
    }
  }
  const demo: DemoData = { renter: privateKeyToAccount(keys.renter).address, api_key, listings };
  writeFileSync(file, JSON.stringify(demo, null, 2) + "\n", { mode: 0o600 });

  // On the (fresh) chain: list each agent, and rent each model once for the demo renter.
  const { chain } = services;
  const client = createPublicClient({ chain: chain.chain, transport: http(services.config.RPC_URL) });
  const target = marketTargetOf(services);
  for (const [i, listing] of listings.entries()) {
    const creatorKey = keys.creators[DEMO_AGENTS[i]!.creatorIndex];
    const onChainId = onChainIdOf(listing.listing_id);
    const token = demoToken(services, listing.currency);
    if (token) {
      await ensureTokenListing(services, creatorKey, listing, token);
      continue;
    }
    const existing = await client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId] });
    if (existing[3] === 0) await listAgent(target, creatorKey, listing, listing.rental_model, parseEther(listing.price_eth));
    const status = await client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "credentialStatus", args: [onChainId, demo.renter as Hex] });
    if (status !== 0 || i >= 3) continue; // the renter rents the first three, one per model
    const price = parseEther(listing.price_eth);
    if (listing.rental_model === "one_time") await writeMarketplace(target, keys.renter, "purchaseOneTime", [onChainId], price);
    if (listing.rental_model === "subscription") await writeMarketplace(target, keys.renter, "purchaseSubscription", [onChainId, 2_592_000n], price);
    if (listing.rental_model === "per_query") await writeMarketplace(target, keys.renter, "purchasePerQuery", [onChainId], price * 10n);
  }
  return demo;
}

/** The token listing on the TokenMarketplace (the chain is fresh at every start), as its creator lists it. */
async function ensureTokenListing(services: Services, creatorKey: Hex, listing: DemoListing, token: { address: Address; decimals: number }): Promise<void> {
  const { chain } = services;
  const tokenMarketplace = marketAddress(chain, "token");
  const onChainId = onChainIdOf(listing.listing_id);
  const existing = await chain.client.readContract({ address: tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "listings", args: [onChainId] });
  if (existing[3] !== 0) return;
  const created = await createTokenListing({
    rpcUrl: services.config.RPC_URL,
    chain: chain.chain,
    tokenMarketplace,
    creatorPrivateKey: creatorKey,
    token: token.address,
    seed: listing.listing_seed,
    rentalModel: listing.rental_model,
    price: parseUnits(listing.price_eth, token.decimals),
    metadataUri: listing.metadata_uri,
  });
  if (created.listingId.toLowerCase() !== onChainId.toLowerCase()) throw new Error(`The token listing of ${listing.name} has id ${created.listingId}, not its registered ${onChainId}.`);
}
