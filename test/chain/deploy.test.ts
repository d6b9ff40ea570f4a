import { describe, expect, inject, it } from "vitest";
import { createPublicClient, http } from "viem";
import { hardhat } from "viem/chains";
import { deployMarketplace } from "../../src/chain/deploy.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { DEV_ACCOUNTS } from "../../local/chain.ts";

describe("deployMarketplace", () => {
  it("deploys the marketplace with the given authority and fee recipient", async () => {
    const rpcUrl = inject("rpcUrl");
    const [deployer, authority, fees] = DEV_ACCOUNTS;
    const deployed = await deployMarketplace({
      rpcUrl,
      chain: hardhat,
      deployerPrivateKey: deployer.privateKey,
      authority: authority.address,
      feeRecipient: fees.address,
    });
    const client = createPublicClient({ chain: hardhat, transport: http(rpcUrl) });
    expect(await client.readContract({ address: deployed.address, abi: marketplaceAbi, functionName: "authority" })).toBe(authority.address);
    expect(await client.readContract({ address: deployed.address, abi: marketplaceAbi, functionName: "feeRecipient" })).toBe(fees.address);
  });
});
