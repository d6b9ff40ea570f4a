// The marketplace's events are the indexer's only input: this test drives every state change on a real
// node, then rebuilds listings, credentials (with expiry), per-query balances, escrow and fees from the
// decoded logs alone and compares the result with the contract's storage.
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  createPublicClient,
  encodePacked,
  http,
  keccak256,
  toHex,
  type Address,
  type Hex,
} from "viem";
import { hardhat } from "viem/chains";
import { deployMarketplace } from "../../src/chain/deploy.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { writeMarketplace, type MarketplaceWriteName } from "../../src/chain/write.ts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { CHAIN_LISTING_STATUSES, type ListingStatus } from "@agent-rental/core/vocabulary";

// Accounts no other suite sends from on the shared node (nonces stay ours): 9 deploys, 2 is the authority.
const [, feeAccount, authorityAccount, creatorAccount, renterA, renterB] = DEV_ACCOUNTS;
const deployer = DEV_ACCOUNTS[9];
const PRICE = 10n ** 15n;
const THIRTY_DAYS = 2_592_000n;

interface IndexedListing {
  creator: Address;
  seed: Hex;
  accessType: number;
  price: bigint;
  metadataUri: string;
  status: ListingStatus;
  escrow: bigint;
}

interface IndexedCredential {
  accessType: number;
  purchasedAtBlock: bigint;
  expiresAt: bigint | null;
  revoked: boolean;
}

describe("marketplace events", () => {
  const rpcUrl = inject("rpcUrl");
  const transport = http(rpcUrl);
  const client = createPublicClient({ chain: hardhat, transport });
  let address: Address;
  let fromBlock: bigint;

  async function send(key: Hex, functionName: MarketplaceWriteName, args: readonly unknown[], value?: bigint): Promise<void> {
    const receipt = await writeMarketplace({ rpcUrl, chain: hardhat, marketplace: address }, key, functionName, args as never, value);
    expect(receipt.status).toBe("success");
  }

  const idOf = (seed: Hex) => keccak256(encodePacked(["address", "bytes32"], [creatorAccount.address, seed]));
  const seeds = { oneTime: toHex("one-time", { size: 32 }), sub: toHex("subscription", { size: 32 }), perQuery: toHex("per-query", { size: 32 }) };

  beforeAll(async () => {
    const deployed = await deployMarketplace({
      rpcUrl,
      chain: hardhat,
      deployerPrivateKey: deployer.privateKey,
      authority: authorityAccount.address,
      feeRecipient: feeAccount.address,
    });
    address = deployed.address;
    fromBlock = deployed.blockNumber;

    const creator = creatorAccount.privateKey;
    const authority = authorityAccount.privateKey;
    await send(creator, "createListing", [seeds.oneTime, 0, PRICE, "ipfs://one-time"]);
    await send(creator, "createListing", [seeds.sub, 1, PRICE, "ipfs://subscription"]);
    await send(creator, "createListing", [seeds.perQuery, 2, PRICE, "ipfs://per-query"]);
    const [oneTime, sub, perQuery] = [idOf(seeds.oneTime), idOf(seeds.sub), idOf(seeds.perQuery)];

    await send(renterA.privateKey, "purchaseOneTime", [oneTime], PRICE);
    await send(renterB.privateKey, "purchaseOneTime", [oneTime], PRICE);
    await send(creator, "revokeAccess", [oneTime, renterB.address]);
    await send(renterA.privateKey, "purchaseSubscription", [sub, THIRTY_DAYS * 3n], PRICE * 3n);
    await send(renterA.privateKey, "renewSubscription", [sub, THIRTY_DAYS], PRICE);
    await send(renterA.privateKey, "purchasePerQuery", [perQuery], PRICE * 3n);
    await send(renterB.privateKey, "purchasePerQuery", [perQuery], PRICE * 2n);
    await send(renterA.privateKey, "topUpBalance", [perQuery], PRICE);
    await send(authority, "consumeQuery", [perQuery, renterA.address, keccak256(toHex("run-1")), PRICE]);
    await send(authority, "consumeQuery", [perQuery, renterA.address, keccak256(toHex("run-2")), PRICE]);
    await send(authority, "consumeQuery", [perQuery, renterA.address, keccak256(toHex("run-2")), PRICE]); // retry: no-op
    await send(authority, "setFeeBasisPoints", [1000n]);
    await send(authority, "consumeQuery", [perQuery, renterB.address, keccak256(toHex("run-3")), PRICE]);
    // A batch: a charge, a refusal (an unknown renter) and a skip (run-1 again): one QueryConsumed.
    await send(authority, "consumeQueries", [[
      { listingId: perQuery, buyer: renterA.address, runRef: toHex(512n, { size: 32 }), maxPrice: PRICE },
      { listingId: perQuery, buyer: creatorAccount.address, runRef: toHex(513n, { size: 32 }), maxPrice: PRICE },
      { listingId: perQuery, buyer: renterA.address, runRef: keccak256(toHex("run-1")), maxPrice: PRICE },
    ]]);
    await send(creator, "updateListing", [perQuery, PRICE + 1n, "ipfs://per-query"]);
    await send(renterB.privateKey, "requestBalanceWithdrawal", [perQuery]);
    await send(creator, "revokePerQueryAccess", [perQuery, renterB.address]);
    await send(renterB.privateKey, "withdrawUnspentBalance", [perQuery]);
    await send(creator, "updateListing", [sub, PRICE * 2n, "ipfs://subscription-v2"]);
    await send(creator, "setListingActive", [sub, false]);
    await send(creator, "withdrawEarnings", [oneTime, PRICE]);
    await send(creator, "closeListingAndWithdraw", [oneTime]); // the rest of the escrow, and the close
    await send(authority, "withdrawFees", []);
    await send(renterA.privateKey, "purchasePerQuery", [perQuery], 0n).catch(() => undefined); // a failed call leaves no log
    await send(authority, "logRuns", [keccak256(toHex("batch")), 3]);
  });

  it("rebuilds listings, credentials, balances, escrow and fees from the logs alone", async () => {
    const logs = await client.getContractEvents({ address, abi: marketplaceAbi, fromBlock, toBlock: "latest" });
    const listings = new Map<Hex, IndexedListing>();
    const credentials = new Map<string, IndexedCredential>();
    const balances = new Map<string, bigint>();
    let fees = 0n;
    const key = (listingId: Hex, buyer: Address) => `${listingId}:${buyer.toLowerCase()}`;
    const listing = (id: Hex) => {
      const found = listings.get(id);
      if (!found) throw new Error(`event for unknown listing ${id}`);
      return found;
    };
    const runsLogged: { batchIndex: bigint; count: number }[] = [];

    for (const log of logs) {
      switch (log.eventName) {
        case "ListingCreated":
          listings.set(log.args.listingId!, {
            creator: log.args.creator!,
            seed: log.args.seed!,
            accessType: log.args.accessType!,
            price: log.args.price!,
            metadataUri: log.args.metadataUri!,
            status: "active",
            escrow: 0n,
          });
          break;
        case "ListingUpdated":
          Object.assign(listing(log.args.listingId!), { price: log.args.price!, metadataUri: log.args.metadataUri! });
          break;
        case "ListingActiveSet":
          listing(log.args.listingId!).status = log.args.active ? "active" : "paused";
          break;
        case "ListingClosed":
          listing(log.args.listingId!).status = "closed";
          break;
        case "OneTimePurchased":
          listing(log.args.listingId!).escrow += log.args.price! - log.args.fee!;
          fees += log.args.fee!;
          credentials.set(key(log.args.listingId!, log.args.buyer!), { accessType: 0, purchasedAtBlock: log.blockNumber, expiresAt: null, revoked: false });
          break;
        case "SubscriptionPurchased":
        case "SubscriptionRenewed": {
          listing(log.args.listingId!).escrow += log.args.paid! - log.args.fee!;
          fees += log.args.fee!;
          const k = key(log.args.listingId!, log.args.buyer!);
          const existing = credentials.get(k);
          credentials.set(k, { accessType: 1, purchasedAtBlock: existing?.purchasedAtBlock ?? log.blockNumber, expiresAt: log.args.expiresAt!, revoked: false });
          break;
        }
        case "PerQueryPurchased":
          balances.set(key(log.args.listingId!, log.args.buyer!), log.args.deposit!);
          credentials.set(key(log.args.listingId!, log.args.buyer!), { accessType: 2, purchasedAtBlock: log.blockNumber, expiresAt: null, revoked: false });
          break;
        case "BalanceToppedUp":
          balances.set(key(log.args.listingId!, log.args.buyer!), log.args.newBalance!);
          break;
        case "QueryConsumed":
          balances.set(key(log.args.listingId!, log.args.buyer!), log.args.newBalance!);
          listing(log.args.listingId!).escrow += log.args.price! - log.args.fee!;
          fees += log.args.fee!;
          break;
        case "AccessRevoked":
          credentials.get(key(log.args.listingId!, log.args.buyer!))!.revoked = true;
          break;
        case "UnspentBalanceWithdrawn":
          balances.set(key(log.args.listingId!, log.args.buyer!), 0n);
          break;
        case "EarningsWithdrawn":
          listing(log.args.listingId!).escrow -= log.args.amount!;
          break;
        case "FeesWithdrawn":
          fees -= log.args.amount!;
          break;
        case "RunsLogged":
          runsLogged.push({ batchIndex: log.args.batchIndex!, count: log.args.count! });
          break;
        default:
          break; // protocol parameter events: FeeBasisPointsSet, FeeRecipientSet, PausedSet, AuthorityTransferStarted, AuthorityTransferred
      }
    }

    expect(logs.filter((l) => l.eventName === "QueryConsumed")).toHaveLength(4); // the retried run-2 and run-1 in the batch logged nothing
    expect(logs.filter((l) => l.eventName === "QueryRefused").map((l) => l.args.runRef)).toEqual([toHex(513n, { size: 32 })]);
    expect(logs.filter((l) => l.eventName === "BalanceWithdrawalRequested")).toHaveLength(1);
    expect(runsLogged).toEqual([{ batchIndex: 0n, count: 3 }]);
    expect(listings.size).toBe(3);

    // Compare every rebuilt record with storage.
    for (const [id, indexed] of listings) {
      const [price, escrow, accessType, status, creator, , metadataUri] = await client.readContract({ address, abi: marketplaceAbi, functionName: "listings", args: [id] });
      expect({ price, escrow, accessType, status: CHAIN_LISTING_STATUSES[status], creator, metadataUri }).toEqual({
        price: indexed.price,
        escrow: indexed.escrow,
        accessType: indexed.accessType,
        status: indexed.status,
        creator: indexed.creator,
        metadataUri: indexed.metadataUri,
      });
      expect(id).toBe(keccak256(encodePacked(["address", "bytes32"], [indexed.creator, indexed.seed])));
    }
    for (const [k, indexed] of credentials) {
      const [listingId, buyer] = k.split(":") as [Hex, Address];
      if (indexed.accessType === 2) {
        const [balance, , isRevoked] = await client.readContract({ address, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listingId, buyer] });
        expect({ balance, isRevoked }).toEqual({ balance: balances.get(k), isRevoked: indexed.revoked });
      } else {
        const [storedBuyer, purchasedAt, expiresAt, accessType, isRevoked] = await client.readContract({ address, abi: marketplaceAbi, functionName: "credentials", args: [listingId, buyer] });
        const block = await client.getBlock({ blockNumber: indexed.purchasedAtBlock });
        expect({ buyer: storedBuyer.toLowerCase(), purchasedAt: BigInt(purchasedAt), expiresAt: BigInt(expiresAt), accessType, isRevoked }).toEqual({
          buyer,
          purchasedAt: block.timestamp,
          expiresAt: indexed.expiresAt ?? 0n,
          accessType: indexed.accessType,
          isRevoked: indexed.revoked,
        });
      }
    }
    expect(await client.readContract({ address, abi: marketplaceAbi, functionName: "accruedFees" })).toBe(fees);

    // The ETH the contract holds is exactly what the logs say it owes.
    const owed = [...listings.values()].reduce((sum, l) => sum + l.escrow, 0n) + [...balances.values()].reduce((a, b) => a + b, 0n) + fees;
    expect(await client.getBalance({ address })).toBe(owed);
  });

  it("decodes a revert into the spec's custom error name", async () => {
    const perQuery = idOf(seeds.perQuery);
    await expect(
      client.simulateContract({ address, abi: marketplaceAbi, functionName: "purchasePerQuery", args: [perQuery], value: PRICE - 1n, account: DEV_ACCOUNTS[8].address }),
    ).rejects.toThrow(/DepositTooLow/);
    await expect(
      client.simulateContract({ address, abi: marketplaceAbi, functionName: "consumeQuery", args: [perQuery, renterA.address, toHex("x", { size: 32 }), PRICE], account: renterA.address }),
    ).rejects.toThrow(/Unauthorized/);
  });
});
