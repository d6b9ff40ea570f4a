// The TokenMarketplace's listing event decodes into a listing patch naming its token, and its charges
// (Marketplace's events, emitted by the token contract) into the same credential patches as ETH ones.
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, encodeEventTopics, type Log } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { patchesFromLogs } from "./events.ts";

const listingId = `0x${"11".repeat(32)}` as const;
const creator = "0x90F79bf6EB2c4f870365E785982E1f101E93b906" as const;
const buyer = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65" as const;
const token = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const;
const tokenMarketplace = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512" as const;

function log(topics: readonly unknown[], data: `0x${string}`, logIndex: number): Log {
  return { address: tokenMarketplace, topics: topics as [`0x${string}`, ...`0x${string}`[]], data, blockNumber: 7n, logIndex, blockHash: `0x${"00".repeat(32)}`, transactionHash: `0x${"22".repeat(32)}`, transactionIndex: 0, removed: false };
}

describe("the TokenMarketplace's events in the index", () => {
  it("TokenListingCreated is a listing with its token; QueryConsumed from the token contract a balance, as from the Marketplace", () => {
    const created = log(
      encodeEventTopics({ abi: tokenMarketplaceAbi, eventName: "TokenListingCreated", args: { listingId, creator, token } }),
      encodeAbiParameters([{ type: "bytes32" }, { type: "uint8" }, { type: "uint256" }, { type: "string" }], [`0x${"33".repeat(32)}`, 2, 250_000n, "ipfs://bafkexample"]),
      0,
    );
    const consumed = log(
      encodeEventTopics({ abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId, buyer, runRef: `0x${"44".repeat(32)}` } }),
      encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }], [250_000n, 6_250n, 750_000n]),
      1,
    );
    const [listing, credential] = patchesFromLogs([created, consumed]);
    expect(listing).toMatchObject({ kind: "listing", listingId, set: { creator: creator.toLowerCase(), rental_model: "per_query", price_wei: "250000", token: token.toLowerCase(), metadata_uri: "ipfs://bafkexample", status: "active" } });
    expect(credential).toMatchObject({ kind: "credential", listingId, wallet: buyer.toLowerCase(), set: { balance_wei: "750000" } });
  });
});
