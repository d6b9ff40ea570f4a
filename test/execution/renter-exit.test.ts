// The renter's exits never void admitted work, and consent caps the price (docs/design/decisions/0058,
// 0059), through the real API on the real chain. Each case holds a per-task run at the connected agent
// (its output streaming), makes the move the audit found (the creator pauses or raises the price by a
// wei and the renter leaves at once; the creator raises the price to 1,000 times what the renter
// deposited at), then lets the run finish and checks its charge: the answer, the QueryConsumed event,
// the balance. And the API admits no run on a balance that is leaving, nor at a price the renter did not
// agree to (403, both prices named), until a top-up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseError, ContractFunctionRevertedError, formatEther } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { writeMarketplace, MarketplaceWriteError } from "../../src/chain/write.ts";
import { chargeRefOf } from "../../src/execution/runs/run.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { SETTLEMENT_WINDOW_MS } from "../../src/execution/money/ledger.ts";
import { MANIFEST_LIMITS } from "@agent-rental/core/manifest";
import { indexChain, marketTarget, type PublishedAgent } from "../support/agents.ts";
import { until } from "../support/until.ts";
import { expectMoneyAndRecordsIntact, startFaultWorld, type FaultWorld, type Renter } from "../faults/support.ts";

let world: FaultWorld;

beforeAll(async () => {
  world = await startFaultWorld();
});

afterAll(async () => {
  await world?.stop();
});

/** The prices charged for `runId`, from the QueryConsumed events of its charge reference. */
async function chargedOnChain(listing: PublishedAgent, runId: string): Promise<bigint[]> {
  const { chain, tables } = world.ctx.services;
  const run = await getRun(tables, runId);
  if (!run) throw new Error(`no run ${runId}`);
  const events = await chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: listing.onChainId, runRef: chargeRefOf(run) }, fromBlock: 0n, toBlock: "latest" });
  return events.map((event) => event.args.price!);
}

const asRenter = (renter: Renter, functionName: "withdrawUnspentBalance" | "requestBalanceWithdrawal" | "topUpBalance", listing: PublishedAgent, value?: bigint) =>
  writeMarketplace(marketTarget(world.ctx), renter.account, functionName, [listing.onChainId], value);
const asCreator = (functionName: "setListingActive" | "updateListing", args: readonly unknown[]) =>
  writeMarketplace(marketTarget(world.ctx), world.creator, functionName, args as never);

/** The custom error a refused write reverted with (decoded by viem from the simulation), or "accepted". */
async function refusal(write: Promise<unknown>): Promise<string> {
  try {
    await write;
  } catch (error) {
    if (error instanceof MarketplaceWriteError) return "reverted without a decoded error";
    const revert = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? "reverted";
    throw error;
  }
  return "accepted";
}

describe("the renter's exit while a per-task run admitted before it is in flight", () => {
  it.each([
    ["the creator pauses the listing", "stream exit after a pause", true, (listing: PublishedAgent) => asCreator("setListingActive", [listing.onChainId, false])],
    ["the creator raises the price by one wei", "stream exit after a one-wei rise", true, (listing: PublishedAgent) => asCreator("updateListing", [listing.onChainId, listing.priceWei + 1n, listing.metadata_uri])],
    ["the creator pauses the listing (synchronous route)", "exit after a pause", false, (listing: PublishedAgent) => asCreator("setListingActive", [listing.onChainId, false])],
  ])("%s: the renter cannot take the balance at once; the run is charged and its output is paid for", async (_case, task, stream, move) => {
    const listing = await world.publishConnected(`exit-${stream ? "s" : "y"}-${task.length}`, "per_query");
    const renter = await world.renter();
    const deposit = listing.priceWei; // exactly the run in flight
    await world.buy(renter, listing, deposit);

    const gate = world.gates.hold(task);
    const answering = world.execute(renter, { agent_id: listing.agent_id, task }, { stream });
    await until("the agent to receive the run", () => gate.arrived === 1);
    await move(listing);
    // The audit's exit: the balance taken back at once, before the run's charge. Refused now.
    expect(await refusal(asRenter(renter, "withdrawUnspentBalance", listing))).toBe("WithdrawalNotReady");
    // The renter asks to leave; the exit opens an hour later, after the run settled.
    await asRenter(renter, "requestBalanceWithdrawal", listing);
    expect(await refusal(asRenter(renter, "withdrawUnspentBalance", listing))).toBe("WithdrawalNotReady");
    gate.open();
    const answer = await answering;

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: "completed" });
    expect(answer.body.settlement).toBeUndefined();
    expect(BigInt(answer.body.cost_wei as number)).toBe(listing.priceWei);
    if (stream) expect(answer.deltas.join("")).toBe("alpha beta gamma");
    expect(await chargedOnChain(listing, answer.runId!)).toEqual([listing.priceWei]);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(0n);
    await world.recover();
    await expectMoneyAndRecordsIntact(world);
  });

  it("a balance whose withdrawal is requested admits no new run (403 insufficient_balance, saying why), and a top-up cancels the request", async () => {
    const listing = await world.publishConnected("exit-no-new-runs", "per_query");
    const renter = await world.renter();
    await world.buy(renter, listing, listing.priceWei * 3n);
    await asCreator("updateListing", [listing.onChainId, listing.priceWei + 1n, listing.metadata_uri]);
    await asRenter(renter, "requestBalanceWithdrawal", listing);
    await indexChain(world.ctx);

    const refused = await world.execute(renter, { agent_id: listing.agent_id, task: "a run on a leaving balance" }, { stream: true });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: "insufficient_balance", on_chain_error: { contract: "Marketplace", error: "InsufficientBalance" } } });
    expect((refused.body.error as { message: string }).message).toMatch(/withdrawal .* requested.*topUpBalance/);
    const listed = (await (await world.app.request("/v1/credentials", { headers: { authorization: `Bearer ${renter.key}` } })).json()) as { credentials: { listing_id: string; status: string }[] };
    expect(listed.credentials.find((c) => c.listing_id === listing.listing_id)?.status).toBe("low_balance");
    const verified = (await (await world.app.request(`/v1/credentials/${listing.listing_id}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as { status: string; valid: boolean };
    expect(verified).toMatchObject({ status: "low_balance", valid: false });

    // A top-up at the current price cancels the request and agrees to the price: runs again.
    await asRenter(renter, "topUpBalance", listing, listing.priceWei + 1n);
    const ran = await world.execute(renter, { agent_id: listing.agent_id, task: "a run after the top-up" }, { stream: true });
    expect(ran.status).toBe(200);
    expect(BigInt(ran.body.cost_wei as number)).toBe(listing.priceWei + 1n);
    await world.recover();
    await expectMoneyAndRecordsIntact(world);
  });

  it("waits longer than the longest run plus the service's settlement window", async () => {
    const { chain } = world.ctx.services;
    const delay = await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "BALANCE_WITHDRAWAL_DELAY" });
    expect(Number(delay) * 1000).toBeGreaterThan(MANIFEST_LIMITS.maxTimeoutSeconds * 1000 + SETTLEMENT_WINDOW_MS);
  });
});

describe("consent caps the price", () => {
  it("a price raised to 1,000 times the deposit price while a run is in flight: the run is charged the price it was admitted at", async () => {
    const listing = await world.publishConnected("consent-held", "per_query");
    const renter = await world.renter();
    const raised = listing.priceWei * 1000n;
    const deposit = raised; // a balance a run at the raised price could take whole
    await world.buy(renter, listing, deposit);
    const task = "stream while the price jumps";
    const gate = world.gates.hold(task);
    const answering = world.execute(renter, { agent_id: listing.agent_id, task }, { stream: true });
    await until("the agent to receive the run", () => gate.arrived === 1);
    await asCreator("updateListing", [listing.onChainId, raised, listing.metadata_uri]);
    gate.open();
    const answer = await answering;
    expect(answer.status).toBe(200);
    expect(BigInt(answer.body.cost_wei as number)).toBe(listing.priceWei);
    expect(await chargedOnChain(listing, answer.runId!)).toEqual([listing.priceWei]);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(deposit - listing.priceWei);
    await world.recover();
    await expectMoneyAndRecordsIntact(world);
  });

  it.each([false, true])("a run asked for after the price rose above the deposit price is refused, 403 price_not_agreed naming both prices (stream: %s), until the renter tops up at it", async (stream) => {
    const listing = await world.publishConnected(`consent-${stream ? "stream" : "sync"}`, "per_query");
    const renter = await world.renter();
    const raised = listing.priceWei * 1000n;
    await world.buy(renter, listing, raised);
    await asCreator("updateListing", [listing.onChainId, raised, listing.metadata_uri]);
    const balanceBefore = await world.balanceOf(listing, renter.account.address);

    const refused = await world.execute(renter, { agent_id: listing.agent_id, task: stream ? "stream at a price never agreed" : "a run at a price never agreed" }, { stream });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: "price_not_agreed", status: 403 } });
    const message = (refused.body.error as { message: string; on_chain_error?: unknown }).message;
    expect(message).toContain(`${raised} wei (${formatEther(raised)} ETH)`);
    expect(message).toContain(`${listing.priceWei} wei (${formatEther(listing.priceWei)} ETH)`);
    expect((refused.body.error as { on_chain_error?: unknown }).on_chain_error).toBeUndefined();
    expect(refused.carriedOutput).toBe(false);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(balanceBefore);

    await asRenter(renter, "topUpBalance", listing, raised);
    const ran = await world.execute(renter, { agent_id: listing.agent_id, task: stream ? "stream at the agreed price" : "a run at the agreed price" }, { stream });
    expect(ran.status).toBe(200);
    expect(BigInt(ran.body.cost_wei as number)).toBe(raised);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(balanceBefore + raised - raised);
    await world.recover();
    await expectMoneyAndRecordsIntact(world);
  });
});
