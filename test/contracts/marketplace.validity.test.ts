// isCredentialValid against the spec's validity rule in every state a credential can be in. This file
// moves chain time forward (subscription expiry), so it runs on a Hardhat node of its own instead of
// the shared one, where time travel would leak into other suites.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodePacked,
  http,
  keccak256,
  toHex,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { deployMarketplace } from "../../src/chain/deploy.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { writeMarketplace, type MarketplaceWriteName } from "../../src/chain/write.ts";
import { DEV_ACCOUNTS, startChain, type ChainNode } from "../../local/chain.ts";
import { freePort } from "../../local/ports.ts";
import { CHAIN_CREDENTIAL_STATUSES, type CredentialStatus } from "@agent-rental/core/vocabulary";

const [deployer, authorityAccount, feeAccount, creatorAccount, renterA, renterB] = DEV_ACCOUNTS;
const renterC = DEV_ACCOUNTS[7];
const PRICE = 10n ** 15n;
const THIRTY_DAYS = 2_592_000n;

describe("isCredentialValid", () => {
  let chain: ChainNode;
  let address: Address;
  let rpcUrl: string;
  let seedCounter = 0;

  const clients = () => {
    const transport = http(rpcUrl);
    return {
      client: createPublicClient({ chain: hardhat, transport }),
      test: createTestClient({ chain: hardhat, mode: "hardhat", transport }),
      wallet: (key: Hex) => createWalletClient({ account: privateKeyToAccount(key), chain: hardhat, transport }),
    };
  };

  async function send(key: Hex, functionName: MarketplaceWriteName, args: readonly unknown[], value?: bigint): Promise<void> {
    const receipt = await writeMarketplace({ rpcUrl, chain: hardhat, marketplace: address }, key, functionName, args as never, value);
    expect(receipt.status).toBe("success");
  }

  async function valid(listingId: Hex, buyer: Address): Promise<boolean> {
    return clients().client.readContract({ address, abi: marketplaceAbi, functionName: "isCredentialValid", args: [listingId, buyer] });
  }

  async function status(listingId: Hex, buyer: Address): Promise<CredentialStatus> {
    const s = await clients().client.readContract({ address, abi: marketplaceAbi, functionName: "credentialStatus", args: [listingId, buyer] });
    return CHAIN_CREDENTIAL_STATUSES[s]!;
  }

  /** Creates a fresh listing of the given model (0 one_time, 1 subscription, 2 per_query). */
  async function list(accessType: 0 | 1 | 2): Promise<Hex> {
    const seed = toHex(++seedCounter, { size: 32 });
    await send(creatorAccount.privateKey, "createListing", [seed, accessType, PRICE, "ipfs://manifest"]);
    return keccak256(encodePacked(["address", "bytes32"], [creatorAccount.address, seed]));
  }

  async function travel(seconds: bigint): Promise<void> {
    const { test } = clients();
    await test.increaseTime({ seconds: Number(seconds) });
    await test.mine({ blocks: 1 });
  }

  beforeAll(async () => {
    chain = await startChain({ port: await freePort() });
    rpcUrl = chain.rpcUrl;
    ({ address } = await deployMarketplace({
      rpcUrl,
      chain: hardhat,
      deployerPrivateKey: deployer.privateKey,
      authority: authorityAccount.address,
      feeRecipient: feeAccount.address,
    }));
  }, 60_000);

  afterAll(async () => {
    await chain?.stop();
  });

  it("is false when no credential exists (unknown listing or no purchase)", async () => {
    const id = await list(0);
    expect(await valid(id, renterA.address)).toBe(false);
    expect(await status(id, renterA.address)).toBe("not_found");
    expect(await valid(toHex(404, { size: 32 }), renterA.address)).toBe(false);
  });

  it("one_time: valid after purchase, for good, and while the listing is paused", async () => {
    const id = await list(0);
    await send(renterA.privateKey, "purchaseOneTime", [id], PRICE);
    expect(await valid(id, renterA.address)).toBe(true);
    await travel(10n * 365n * 86_400n);
    expect(await valid(id, renterA.address)).toBe(true);
    await send(creatorAccount.privateKey, "setListingActive", [id, false]);
    expect(await valid(id, renterA.address)).toBe(true);
  });

  it("subscription: active, expired at expiresAt, active again after renewal", async () => {
    const id = await list(1);
    await send(renterA.privateKey, "purchaseSubscription", [id, THIRTY_DAYS], PRICE);
    expect(await valid(id, renterA.address)).toBe(true);
    expect(await status(id, renterA.address)).toBe("active");
    await travel(THIRTY_DAYS - 60n);
    expect(await valid(id, renterA.address)).toBe(true);
    await travel(120n);
    expect(await valid(id, renterA.address)).toBe(false);
    expect(await status(id, renterA.address)).toBe("expired");
    await send(renterA.privateKey, "renewSubscription", [id, THIRTY_DAYS], PRICE);
    expect(await valid(id, renterA.address)).toBe(true);
    const [, , expiresAt] = await clients().client.readContract({ address, abi: marketplaceAbi, functionName: "credentials", args: [id, renterA.address] });
    const now = (await clients().client.getBlock()).timestamp;
    expect(BigInt(expiresAt) - now).toBe(THIRTY_DAYS); // an expired subscription restarts from now
  });

  it("per_query: valid with a balance, low_balance at zero, valid again after a top-up", async () => {
    const id = await list(2);
    await send(renterA.privateKey, "purchasePerQuery", [id], PRICE);
    expect(await valid(id, renterA.address)).toBe(true);
    await send(authorityAccount.privateKey, "consumeQuery", [id, renterA.address, keccak256(toHex("validity-run-1")), PRICE]);
    expect(await valid(id, renterA.address)).toBe(false);
    expect(await status(id, renterA.address)).toBe("low_balance");
    await send(renterA.privateKey, "topUpBalance", [id], PRICE);
    expect(await valid(id, renterA.address)).toBe(true);
  });

  it("per_query: low_balance and invalid while the balance is above zero but below one run at the current price", async () => {
    const id = await list(2);
    await send(renterA.privateKey, "purchasePerQuery", [id], PRICE);
    await send(creatorAccount.privateKey, "updateListing", [id, PRICE + 1n, "ipfs://validity"]);
    expect(await valid(id, renterA.address)).toBe(false);
    expect(await status(id, renterA.address)).toBe("low_balance");
    await send(creatorAccount.privateKey, "updateListing", [id, PRICE, "ipfs://validity"]);
    expect(await valid(id, renterA.address)).toBe(true);
  });

  it("per_query: low_balance once a withdrawal is requested, withdrawable an hour later, valid again after a top-up", async () => {
    const id = await list(2);
    await send(renterB.privateKey, "purchasePerQuery", [id], PRICE * 4n);
    await send(creatorAccount.privateKey, "setListingActive", [id, false]);
    await send(renterB.privateKey, "requestBalanceWithdrawal", [id]);
    expect(await valid(id, renterB.address)).toBe(false);
    expect(await status(id, renterB.address)).toBe("low_balance");
    await expect(send(renterB.privateKey, "withdrawUnspentBalance", [id])).rejects.toThrow(/WithdrawalNotReady/);
    // A run admitted before the request is still charged.
    await send(authorityAccount.privateKey, "consumeQuery", [id, renterB.address, keccak256(toHex("admitted-before-the-request")), PRICE]);
    await travel(3_600n);
    await send(renterB.privateKey, "withdrawUnspentBalance", [id]);
    const [balance] = await clients().client.readContract({ address, abi: marketplaceAbi, functionName: "perQueryBalances", args: [id, renterB.address] });
    expect(balance).toBe(0n);
    await send(creatorAccount.privateKey, "setListingActive", [id, true]);
    await send(renterB.privateKey, "topUpBalance", [id], PRICE);
    expect(await valid(id, renterB.address)).toBe(true);
  });

  it("per_query: invalid once revoked, whatever the balance", async () => {
    const id = await list(2);
    await send(renterB.privateKey, "purchasePerQuery", [id], PRICE * 5n);
    await send(creatorAccount.privateKey, "revokePerQueryAccess", [id, renterB.address]);
    expect(await valid(id, renterB.address)).toBe(false);
    expect(await status(id, renterB.address)).toBe("revoked");
  });

  it("one_time and subscription: invalid once revoked", async () => {
    const one = await list(0);
    const sub = await list(1);
    await send(renterC.privateKey, "purchaseOneTime", [one], PRICE);
    await send(renterC.privateKey, "purchaseSubscription", [sub, THIRTY_DAYS], PRICE);
    await send(creatorAccount.privateKey, "revokeAccess", [one, renterC.address]);
    await send(creatorAccount.privateKey, "revokeAccess", [sub, renterC.address]);
    expect(await valid(one, renterC.address)).toBe(false);
    expect(await valid(sub, renterC.address)).toBe(false);
  });

  it("every model: invalid once the listing is closed", async () => {
    const ids = [await list(0), await list(1), await list(2)];
    await send(renterA.privateKey, "purchaseOneTime", [ids[0]], PRICE);
    await send(renterA.privateKey, "purchaseSubscription", [ids[1], THIRTY_DAYS * 12n + 432_000n], (PRICE * 365n) / 30n);
    await send(renterA.privateKey, "purchasePerQuery", [ids[2]], PRICE * 2n);
    for (const id of ids) expect(await valid(id, renterA.address)).toBe(true);
    const { client } = clients();
    // one_time: paused (access kept), then closed with its earnings withdrawn in the same transaction.
    await send(creatorAccount.privateKey, "setListingActive", [ids[0]!, false]);
    expect(await valid(ids[0]!, renterA.address)).toBe(true); // a pause keeps existing access
    await expect(send(creatorAccount.privateKey, "closeListing", [ids[0]!])).rejects.toThrow(/EscrowNotEmpty/);
    await send(creatorAccount.privateKey, "closeListingAndWithdraw", [ids[0]!]);
    // per_query: an active listing with an empty escrow closes as it is (a deposit is not escrow).
    await send(creatorAccount.privateKey, "closeListing", [ids[2]!]);
    for (const id of [ids[0]!, ids[2]!]) {
      expect(await valid(id, renterA.address)).toBe(false);
      expect(await status(id, renterA.address)).toBe("listing_closed");
    }
    // A subscription listing's escrow empties, and the listing closes, only once the period its renter
    // paid for has vested (by the end of its last day).
    await expect(send(creatorAccount.privateKey, "closeListingAndWithdraw", [ids[1]!])).rejects.toThrow(/EscrowNotEmpty/);
    await travel(THIRTY_DAYS * 12n + 432_000n + 86_400n);
    await send(creatorAccount.privateKey, "closeListingAndWithdraw", [ids[1]!]);
    expect(await status(ids[1]!, renterA.address)).toBe("listing_closed");
    const [, escrow] = await client.readContract({ address, abi: marketplaceAbi, functionName: "listings", args: [ids[1]!] });
    expect(escrow).toBe(0n);
    // The unspent per-query deposit is still the renter's, withdrawable at once after the close.
    await send(renterA.privateKey, "withdrawUnspentBalance", [ids[2]]);
    const [balance] = await client.readContract({ address, abi: marketplaceAbi, functionName: "perQueryBalances", args: [ids[2]!, renterA.address] });
    expect(balance).toBe(0n);
  });
});
