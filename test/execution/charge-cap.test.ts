// The renter's on-chain charge cap, end to end on the real chain and contract, the API served over HTTP:
// a cap covering 3 runs a day, 5 runs asked for: 3 charged, 2 refused at admission before any work (402
// spend_limit_reached naming the contract's ChargeCapExceeded, Retry-After until the period ends), and
// the authority's own key refused by the contract past the cap.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { BaseError, ContractFunctionRevertedError, type Hex } from "viem";
import { writeMarketplace } from "../../src/chain/write.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import type { AgentCall } from "../support/connected-agent.ts";

let world: World;

async function agent(call: AgentCall): Promise<void> {
  await call.gate();
  call.output({ findings: [`done: ${call.task}`] });
}

async function balanceOf(listing: PublishedAgent, wallet: Hex): Promise<bigint> {
  const [balance] = await world.services.chain.client.readContract({ address: world.services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listing.onChainId, wallet] });
  return balance;
}

beforeAll(async () => {
  world = await startWorld({ agent: { handler: agent } });
}, 240_000);

afterAll(() => world?.close());

describe("a renter's charge cap (setChargeCap) at admission", () => {
  it("charges 3 of 5 runs on a cap covering 3 a day; the other 2 are refused 402 before any work", async () => {
    const listing = await world.publishConnected("cap-five", { rental: "per_query" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 10n });
    const cap = listing.priceWei * 3n + listing.priceWei / 2n;
    await writeMarketplace(world.target, renter.account, "setChargeCap", [listing.onChainId, cap, 86_400n]);
    const before = world.agent.deliveries.filter((d) => d.agent === "cap-five").length;

    const answers: { status: number; retryAfter: string | null; body: { status?: string; cost_wei?: number; error?: { code: string; status: number; on_chain_error?: { contract: string; error: string }; spend_limit?: unknown } } }[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task: `run ${i}` }) });
      answers.push({ status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as never });
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 402, 402]);
    for (const a of answers.slice(0, 3)) expect(a.body).toMatchObject({ status: "completed" });
    for (const a of answers.slice(3)) {
      expect(a.body.error).toMatchObject({ code: "spend_limit_reached", status: 402, on_chain_error: { contract: "Marketplace", error: "ChargeCapExceeded" } });
      expect(a.body.error?.spend_limit).toBeUndefined();
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
      expect(Number(a.retryAfter)).toBeLessThanOrEqual(86_400);
    }
    // No work for the refused runs: the agent saw 3 deliveries, the chain 3 charges.
    expect(world.agent.deliveries.filter((d) => d.agent === "cap-five").length - before).toBe(3);
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 7n);

    // Even the authority's key cannot pass the cap: the contract refuses a direct charge.
    const refused = await writeMarketplace(world.target, world.ctx.authority, "consumeQuery", [listing.onChainId, renter.account.address, `0x${"ab".repeat(32)}`, listing.priceWei]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BaseError);
    const revert = (refused as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    expect(revert?.data?.errorName).toBe("ChargeCapExceeded");
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 7n);
  }, 120_000);

  it("holds runs in flight against the cap's remainder: of 4 sent at once on a cap covering 2, 2 run and 2 get 429 until they finish, then 402", async () => {
    const listing = await world.publishConnected("cap-concurrent", { rental: "per_query" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 10n });
    await writeMarketplace(world.target, renter.account, "setChargeCap", [listing.onChainId, listing.priceWei * 2n, 86_400n]);
    const gate = world.agent.gates.hold("held");
    const execute = (task: string) => fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task }) });
    const sent = Array.from({ length: 4 }, () => execute("held"));
    // Two reach the agent; the two the cap cannot take while those are in flight are answered at once.
    await expect.poll(() => gate.arrived, { timeout: 20_000 }).toBe(2);
    const refusals: Response[] = [];
    const settled = sent.map((p) => p.then((r) => (r.status === 429 ? (refusals.push(r), r) : r)));
    await expect.poll(() => refusals.length, { timeout: 20_000 }).toBe(2);
    for (const r of refusals) {
      expect(r.headers.get("retry-after")).toBe("1");
      const body = (await r.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("rate_limit_exceeded");
      expect(body.error.message).toContain("charge cap's current period covers 2 more run(s)");
    }
    gate.open();
    const answers = await Promise.all(settled);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 429, 429]);
    // Both charged: the period is spent, so the next run is the cap's refusal, before any work.
    await expect.poll(() => balanceOf(listing, renter.account.address), { timeout: 30_000 }).toBe(listing.priceWei * 8n);
    const after = await execute("after");
    expect(after.status).toBe(402);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("spend_limit_reached");
    expect(world.agent.deliveries.filter((d) => d.agent === "cap-concurrent").length).toBe(2);
  }, 120_000);

  it("leaves a renter with no cap unchanged", async () => {
    const listing = await world.publishConnected("cap-none", { rental: "per_query" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 2n });
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task: `run ${i}` }) });
      expect(response.status).toBe(200);
    }
    expect(await balanceOf(listing, renter.account.address)).toBe(0n);
  }, 120_000);
});
