// Token listings on the local chain: a creator lists an agent on the token marketplace, priced in one of
// the stack's tokens (stack.json `contracts.tokens`). The on-chain half only; the service's record of the
// listing is made through its own flow.
import { createPublicClient, createWalletClient, http, parseEventLogs, type Address, type Chain, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { ACCESS_TYPE, type RentalModel } from "@agent-rental/core/vocabulary";


export interface CreateTokenListingParameters {
  rpcUrl: string;
  chain: Chain;
  /** The token marketplace (stack.json `contracts.token_marketplace`). */
  tokenMarketplace: Address;
  /** The creator's key: the listing is theirs. */
  creatorPrivateKey: Hex;
  /** An allowed token (stack.json `contracts.tokens.usdc.address` or `.utility.address`). */
  token: Address;
  /** The creator's seed; the id is the token marketplace's listingIdOf(creator, seed). */
  seed: Hex;
  rentalModel: RentalModel;
  /** In the token's smallest units (USDC: 10^-6; RENT: 10^-18). */
  price: bigint;
  metadataUri: string;
}

/** Creates the listing and returns its on-chain id (the ListingCreated event's). */
export async function createTokenListing(params: CreateTokenListingParameters): Promise<{ listingId: Hex; transactionHash: Hex }> {
  const account = privateKeyToAccount(params.creatorPrivateKey);
  const transport = http(params.rpcUrl);
  const wallet = createWalletClient({ account, chain: params.chain, transport });
  const client = createPublicClient({ chain: params.chain, transport });
  const hash = await wallet.writeContract({
    address: params.tokenMarketplace,
    abi: tokenMarketplaceAbi,
    functionName: "createListing",
    args: [params.seed, params.token, ACCESS_TYPE[params.rentalModel], params.price, params.metadataUri],
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== "success") throw new Error(`createListing on the token marketplace failed in transaction ${hash}`);
  const [created] = parseEventLogs({ abi: tokenMarketplaceAbi, eventName: "TokenListingCreated", logs: receipt.logs });
  if (!created) throw new Error(`transaction ${hash} created no token listing`);
  return { listingId: created.args.listingId, transactionHash: hash };
}
