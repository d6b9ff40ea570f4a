// Token listings in a test world: the TokenMarketplace with the local USDC stand-in and Rental Credit
// deployed beside the world's Marketplace (the service configured with both, as the local stack is), an
// agent registered under a token listing's id and listed, approved and indexed, and a renter who buys it
// in its token. The agent's record is written as registration writes it; only its listing id is the
// TokenMarketplace's listingIdOf(creator, seed).
import { createHash, randomBytes } from "node:crypto";
import { createPublicClient, createWalletClient, http, keccak256, toHex, type Address, type Hex } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { localUsdcAbi, tokenSetting, type TokenInfo } from "@agent-rental/core/tokens";
import { publicMetadata, validateManifest } from "@agent-rental/core/manifest";
import type { RentalModel } from "@agent-rental/core/vocabulary";
import { chainFor } from "../../src/chain/client.ts";
import { deployTokenMarketplace, mintLocalTokens, type DeployTokenMarketplaceReturnType } from "../../src/chain/deploy.ts";
import { toListingId } from "../../src/listings/ids.ts";
import { putAgent, putAgentAlias } from "../../src/listings/listing.store.ts";
import { enqueueListingReview, reviewListing } from "../../src/listings/reviews.ts";
import { rotateWebhookSecret } from "../../src/listings/secrets.ts";
import { canonicalJson, cidOf } from "../../src/registration/cid.ts";
import { seal } from "../../src/registration/sealed.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { createTokenListing } from "../../local/token-listings.ts";
import { fundAccount, DAYS_30, type Account } from "./chain-actions.ts";
import { CONNECTED_MANIFEST, type World } from "./world-on.ts";

export interface TokenDeployment extends DeployTokenMarketplaceReturnType {
  /** The deployer: the tokens' minter, and the TokenMarketplace's authority until handAuthority. */
  deployer: Account;
  /** The service settings naming it (TOKEN_MARKETPLACE_ADDRESS, its block, TOKENS). */
  env: Record<string, string>;
}

/** Deploys the TokenMarketplace and its two tokens on `rpcUrl`; pass `env` to the world. */
export async function deployTokens(rpcUrl: string): Promise<TokenDeployment> {
  const deployer = await fundAccount(rpcUrl);
  const deployed = await deployTokenMarketplace({ rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, rpcUrl), deployerPrivateKey: deployer.privateKey, authority: deployer.address, feeRecipient: privateKeyToAccount(generatePrivateKey()).address });
  const env = { TOKEN_MARKETPLACE_ADDRESS: deployed.address, TOKEN_MARKETPLACE_DEPLOY_BLOCK: deployed.blockNumber.toString(), TOKENS: JSON.stringify(tokenSetting(deployed.tokens)) };
  return { ...deployed, deployer, env };
}

function clients(world: World, account: Account) {
  const chain = chainFor(LOCAL_CHAIN_ID, world.rpcUrl);
  const transport = http(world.rpcUrl);
  return { wallet: createWalletClient({ account, chain, transport }), client: createPublicClient({ chain, transport }) };
}

async function send(world: World, account: Account, request: { address: Address; abi: readonly unknown[]; functionName: string; args: readonly unknown[] }): Promise<void> {
  const { wallet, client } = clients(world, account);
  const hash = await wallet.writeContract(request as never);
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== "success") throw new Error(`${request.functionName} failed in ${hash}`);
}

/** Makes the world's authority (the key its settler holds) the TokenMarketplace's authority too. */
export async function handAuthority(world: World, tokens: TokenDeployment): Promise<void> {
  await send(world, tokens.deployer, { address: tokens.address, abi: tokenMarketplaceAbi, functionName: "transferAuthority", args: [world.ctx.authority.address] });
  await send(world, world.ctx.authority as Account, { address: tokens.address, abi: tokenMarketplaceAbi, functionName: "acceptAuthority", args: [] });
}

export interface TokenAgent {
  agent_id: string;
  listing_id: string;
  onChainId: Hex;
  rental: RentalModel;
  token: TokenInfo;
  /** In the token's smallest unit. */
  price: bigint;
}

/** A connected agent at the world's fake agent `/agents/<name>`, listed on the TokenMarketplace in `token`
 * at `price` (smallest unit) under `rental`, approved and indexed. */
export async function publishTokenAgent(world: World, tokens: TokenDeployment, name: string, options: { rental: RentalModel; token: TokenInfo; price: bigint }): Promise<TokenAgent> {
  const { services } = world;
  const creator = (await world.creator()).account;
  const validation = validateManifest({ ...CONNECTED_MANIFEST, name, entrypoint_url: world.agent.entrypoint(name) }, { allowPrivateHosts: true });
  if (!validation.ok) throw new Error(`manifest of ${name}: ${JSON.stringify(validation.errors)}`);
  const manifest = validation.manifest;
  const seed = keccak256(toHex(`token-agent:${name}:${randomBytes(8).toString("hex")}`));
  const { client } = clients(world, creator);
  const onChainId = await client.readContract({ address: tokens.address, abi: tokenMarketplaceAbi, functionName: "listingIdOf", args: [creator.address, seed] });
  const listingId = toListingId(onChainId);
  const agentId = `${name}-${onChainId.slice(2, 10)}`;
  // As registration writes an agent: public metadata by content address, the logic sealed under the
  // listing's own data key, the record, its review entry and its alias.
  const metadata = Buffer.from(canonicalJson(publicMetadata(manifest)), "utf8");
  const cid = cidOf(metadata);
  await services.blobs.put(`ipfs/${cid}`, metadata, "application/json");
  const dataKey = await services.keys.generateDataKey({ purpose: "agent_logic", listing_id: listingId });
  const logicBlob = `agents/${listingId}/logic-${createHash("sha256").update(dataKey.wrapped).digest("hex").slice(0, 24)}.sealed`;
  await services.blobs.put(logicBlob, seal(dataKey.plaintext, Buffer.from(JSON.stringify(manifest), "utf8"), `agent_logic:${listingId}`), "application/octet-stream");
  const createdAt = new Date().toISOString();
  await putAgent(services.tables, onChainId, {
    listing_id: listingId, agent_id: agentId, creator: creator.address.toLowerCase(), name, description: manifest.description, category: manifest.category, kind: "connected",
    metadata_uri: `ipfs://${cid}`, sample_output: manifest.sample_output ?? [], listing_seed: seed, logic_blob: logicBlob, logic_key: dataKey.wrapped, review_status: "pending", job_id: `job_token_${name}`, created_at: createdAt,
  });
  await enqueueListingReview(services.tables, listingId, createdAt);
  await putAgentAlias(services.tables, agentId, listingId);
  await createTokenListing({ rpcUrl: world.rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, world.rpcUrl), tokenMarketplace: tokens.address, creatorPrivateKey: creator.privateKey, token: options.token.address, seed, rentalModel: options.rental, price: options.price, metadataUri: `ipfs://${cid}` });
  await reviewListing(services.tables, listingId, "approve", undefined);
  const secret = await rotateWebhookSecret(services, creator.address, listingId);
  world.agent.setSecret(name, secret.webhook_secret);
  await world.index();
  return { agent_id: agentId, listing_id: listingId, onChainId, rental: options.rental, token: options.token, price: options.price };
}

/** Mints `amount` of the agent's token to `renter`, approves the TokenMarketplace and buys the listing:
 * a per-task balance of `deposit` (default two runs), a 30-day subscription, or a one-time rental. */
export async function rentInToken(world: World, tokens: TokenDeployment, renter: Account, agent: TokenAgent, options: { deposit?: bigint } = {}): Promise<void> {
  const deposit = options.deposit ?? agent.price * 2n;
  // Enough of both tokens for any model (a subscription's cost is the contract's; the allowance caps it).
  const cost = agent.rental === "per_query" ? deposit : agent.price * 400n;
  await mintLocalTokens({ rpcUrl: world.rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, world.rpcUrl), deployerPrivateKey: tokens.deployer.privateKey }, { usdc: tokens.tokens.usdc.address, utility: tokens.tokens.utility.address }, [renter.address], { usdc: cost, utility: cost });
  await send(world, renter, { address: agent.token.address, abi: localUsdcAbi, functionName: "approve", args: [tokens.address, cost] });
  if (agent.rental === "per_query") await send(world, renter, { address: tokens.address, abi: tokenMarketplaceAbi, functionName: "purchasePerQuery", args: [agent.onChainId, deposit] });
  else if (agent.rental === "subscription") await send(world, renter, { address: tokens.address, abi: tokenMarketplaceAbi, functionName: "purchaseSubscription", args: [agent.onChainId, DAYS_30] });
  else await send(world, renter, { address: tokens.address, abi: tokenMarketplaceAbi, functionName: "purchaseOneTime", args: [agent.onChainId] });
  await world.index();
}
