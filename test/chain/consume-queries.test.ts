// The batch charge through the service's chain action, on the shared local chain with the real
// contract: every charge's outcome decoded from the receipt (charged with its price, fee and balance,
// refused with the contract error's name, skipped when charged before), the balances as the contract
// holds them, and a batch from anyone but the authority refused whole.
import { beforeAll, describe, expect, it } from "vitest";
import { keccak256, toHex, type Address, type Hex } from "viem";
import { createAuthoritySigner, AuthorityRevertError, type AuthoritySigner } from "../../src/chain/authority.ts";
import { createChainClient, type ChainClient } from "../../src/chain/client.ts";
import { consumeQueries, refusalName, type ConsumeQueriesCharge } from "../../src/chain/consume-queries.ts";
import { consumeQuery } from "../../src/chain/consume-query.ts";
import { readPerQueryBalance } from "../../src/chain/read-per-query-balance.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { deployOn, fundAccount, market, type Account, type Market } from "../support/chain-actions.ts";
import { sharedInfrastructure } from "../support/services.ts";

const PRICE = 10n ** 15n;
const FEE = (PRICE * 250n) / 10_000n;
const dense = (n: bigint): Hex => toHex(n, { size: 32 });

describe("consumeQueries (src/chain/consume-queries.ts)", () => {
  let chain: ChainClient;
  let authority: AuthoritySigner;
  let m: Market;
  let creator: Account;
  let renter: Account;
  let other: Account;
  let listingId: Hex;
  let oneTimeId: Hex;
  let rpcUrl: string;

  beforeAll(async () => {
    rpcUrl = sharedInfrastructure().rpcUrl;
    const deployed = await deployOn(rpcUrl);
    chain = createChainClient({ rpcUrl, chainId: LOCAL_CHAIN_ID, marketplace: deployed.address });
    authority = createAuthoritySigner(chain, rpcUrl, deployed.authority.privateKey);
    m = market({ rpcUrl, marketplace: deployed.address });
    [creator, renter, other] = await Promise.all([fundAccount(rpcUrl), fundAccount(rpcUrl), fundAccount(rpcUrl)]);
    listingId = (await m.createListing(creator, { accessType: "per_query", price: PRICE })).listingId;
    oneTimeId = (await m.createListing(creator, { accessType: "one_time", price: PRICE })).listingId;
    await m.purchasePerQuery(renter, listingId, PRICE * 4n);
    await m.purchasePerQuery(other, listingId, PRICE);
  });

  const balanceOf = async (buyer: Address) => (await readPerQueryBalance(chain, { listingId, buyer })).balanceWei;
  const charge = (buyer: Address, runRef: Hex, maxPrice = PRICE, id = listingId): ConsumeQueriesCharge => ({ listingId: id, buyer, runRef, maxPrice });

  it("decodes each charge: charged with its price, fee and balance; refused with the error's name; skipped when charged before", async () => {
    const hashed = keccak256(toHex("a run with a hashed reference"));
    const { outcomes, receipt } = await consumeQueries(authority, {
      charges: [
        charge(renter.address, dense(512n)),
        charge(renter.address, dense(512n)), // the same run again in the batch
        charge(renter.address, hashed, PRICE / 2n), // admitted at a lower price
        charge(other.address, dense(513n)),
        charge(other.address, dense(514n)), // other's balance is spent now
        charge(renter.address, dense(515n), 1n), // an admitted price below the minimum
        charge(renter.address, dense(516n), PRICE, oneTimeId), // not a per-task listing
        charge(creator.address, dense(517n)), // no rental
      ],
    });
    expect(receipt.status).toBe("success");
    expect(outcomes).toEqual([
      { outcome: "charged", price: PRICE, fee: FEE, newBalance: PRICE * 3n },
      { outcome: "skipped" },
      { outcome: "charged", price: PRICE / 2n, fee: (PRICE / 2n) * 250n / 10_000n, newBalance: PRICE * 3n - PRICE / 2n },
      { outcome: "charged", price: PRICE, fee: FEE, newBalance: 0n },
      { outcome: "refused", error: "InsufficientBalance" },
      { outcome: "refused", error: "PriceTooLow" },
      { outcome: "refused", error: "InvalidAccessType" },
      { outcome: "refused", error: "CredentialNotFound" },
    ]);
    expect(await balanceOf(renter.address)).toBe(PRICE * 3n - PRICE / 2n);
    expect(await balanceOf(other.address)).toBe(0n);

    // A later batch skips what this one charged, and charges what it refused once the renter can pay.
    await m.topUpBalance(other, listingId, PRICE);
    const again = await consumeQueries(authority, { charges: [charge(renter.address, dense(512n)), charge(renter.address, hashed), charge(other.address, dense(514n))] });
    expect(again.outcomes).toEqual([{ outcome: "skipped" }, { outcome: "skipped" }, { outcome: "charged", price: PRICE, fee: FEE, newBalance: 0n }]);
  });

  it("shares the at-most-once mark with consumeQuery, both ways", async () => {
    const before = await balanceOf(renter.address);
    const single = await consumeQuery(authority, { listingId, buyer: renter.address, runRef: dense(600n), maxPrice: PRICE });
    expect(single.charged).toBe(true);
    const batch = await consumeQueries(authority, { charges: [charge(renter.address, dense(600n)), charge(renter.address, dense(601n))] });
    expect(batch.outcomes.map((o) => o.outcome)).toEqual(["skipped", "charged"]);
    const replay = await consumeQuery(authority, { listingId, buyer: renter.address, runRef: dense(601n), maxPrice: PRICE });
    expect(replay.charged).toBe(false);
    expect(await balanceOf(renter.address)).toBe(before - 2n * PRICE);
  });

  it("answers an empty batch with no outcomes", async () => {
    const { outcomes, receipt } = await consumeQueries(authority, { charges: [] });
    expect(receipt.status).toBe("success");
    expect(outcomes).toEqual([]);
  });

  it("refuses the whole batch from anyone but the authority", async () => {
    const impostor = createAuthoritySigner(chain, rpcUrl, renter.privateKey);
    const before = await balanceOf(renter.address);
    const attempt = consumeQueries(impostor, { charges: [charge(renter.address, dense(700n))] });
    await expect(attempt).rejects.toBeInstanceOf(AuthorityRevertError);
    await expect(attempt).rejects.toMatchObject({ contractError: "Unauthorized" });
    expect(await balanceOf(renter.address)).toBe(before);
  });

  it("names every refusal consumeQuery can revert with from its selector", () => {
    for (const name of ["PriceTooLow", "ListingNotFound", "ListingNotActive", "InvalidAccessType", "CredentialNotFound", "CredentialRevoked", "InsufficientBalance"]) {
      const selector = keccak256(toHex(`${name}(${name === "PriceTooLow" || name === "InsufficientBalance" ? "uint256,uint256" : ""})`)).slice(0, 10) as Hex;
      expect(refusalName(selector)).toBe(name);
    }
    expect(refusalName("0x12345678")).toBe("0x12345678");
  });
});
