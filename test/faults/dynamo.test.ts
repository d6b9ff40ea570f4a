// Faults of the DynamoDB emulator: it crashes (SIGKILL) and restarts on the same port and data while
// per-query runs are in flight: while the agent works, at the moment the run finishes and comes back
// within the service's retries, and for longer than those retries. After each, and the recovery passes:
// nothing left running or held, every charge matches exactly one run, no output unpaid.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/until.ts";
import { expectMoneyAndRecordsIntact, startFaultWorld, type FaultWorld, type Renter } from "./support.ts";
import type { PublishedAgent } from "../support/agents.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { chargeMessageBody } from "../../src/execution/money/charge-message.ts";
import { chargeRefHex } from "../../src/execution/money/charge-refs.ts";

let world: FaultWorld;
let listing: PublishedAgent;
let renter: Renter;

beforeAll(async () => {
  // The settler's lease outlives this file's longest outage (about 20 s): a settler sends only while its
  // lease is surely its own, so with the default 15 s it would pause its charges for the rest of an outage.
  world = await startFaultWorld({ env: { SETTLER_LEASE_MS: "60000" } });
  listing = await world.publishConnected("dynamo-restart", "per_query");
  renter = await world.renter();
  await world.buy(renter, listing, listing.priceWei * 10n);
});

afterAll(async () => {
  await world?.stop();
});

async function runDetail(runId: string): Promise<Record<string, unknown>> {
  return (await (await world.app.request(`/v1/runs/${runId}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as Record<string, unknown>;
}

/** Starts a run and waits until the agent holds it. */
async function runHeldAtAgent(task: string, stream = false) {
  const gate = world.gates.hold(task);
  const answering = world.execute(renter, { agent_id: listing.agent_id, task }, { stream });
  await until("the agent to receive the run", () => gate.arrived === 1);
  return { gate, answering };
}

describe("the DynamoDB emulator restarts mid-run", () => {
  it.each([
    ["the synchronous route", false],
    ["the streaming route", true],
  ])("while the agent works, on %s: the run completes, is charged once and its record survives the restart", async (_route, stream) => {
    const before = await world.balanceOf(listing, renter.account.address);
    const task = stream ? "stream through a restart" : "work through a restart";
    const { gate, answering } = await runHeldAtAgent(task, stream);
    const pid = world.dynamo.pid;
    await world.dynamo.kill();
    await world.dynamo.start();
    expect(world.dynamo.pid).not.toBe(pid);
    gate.open();
    const answer = await answering;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: "completed" });
    await world.recover();
    expect(await runDetail(answer.runId!)).toMatchObject({ status: "completed", settlement: "settled" });
    expect(await world.balanceOf(listing, renter.account.address)).toBe(before - listing.priceWei);
    await expectMoneyAndRecordsIntact(world);
  });

  it("down when the run finishes and back within the service's retries: the run still ends completed and charged once", async () => {
    const before = await world.balanceOf(listing, renter.account.address);
    const { gate, answering } = await runHeldAtAgent("finish during a restart");
    await world.dynamo.kill();
    gate.open();
    await world.dynamo.start();
    const answer = await answering;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: "completed" });
    await world.recover();
    expect(await runDetail(answer.runId!)).toMatchObject({ status: "completed", settlement: "settled" });
    expect(await world.balanceOf(listing, renter.account.address)).toBe(before - listing.priceWei);
    await expectMoneyAndRecordsIntact(world);
  });

  it.each([
    ["the synchronous route", false],
    ["the streaming route", true],
  ])("down for longer than the service's retries, on %s: the finished run is still answered completed and charged exactly once, and the recovery passes record it so", async (_route, stream) => {
    // The charge is the chain's, not the table's: with the chain up it lands while storage is down, so
    // the answer is the paid run (200), never a 5xx a client would retry into a second charge. The run's
    // record, slot and reservation are left to the recovery passes, which read the charge from the chain.
    const before = await world.balanceOf(listing, renter.account.address);
    const task = stream ? "stream through a long outage" : "finish during a long outage";
    const { gate, answering } = await runHeldAtAgent(task, stream);
    await world.dynamo.kill();
    gate.open();
    const answer = await answering;
    await world.dynamo.start();
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ run_id: answer.runId, status: "completed", output: { findings: stream ? ["alpha", "beta", "gamma"] : [`done: ${task}`] } });
    expect(answer.body.settlement).toBeUndefined();
    expect(BigInt(answer.body.cost_wei as number)).toBe(listing.priceWei);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(before - listing.priceWei);
    await world.recover();
    const detail = await runDetail(answer.runId!);
    expect(detail).toMatchObject({ status: "completed", settlement: "settled" });
    expect(BigInt(detail.cost_wei as number)).toBe(listing.priceWei);
    // Invariant 3 checks the one QueryConsumed of this run against its record.
    await expectMoneyAndRecordsIntact(world);
  }, 90_000);
});

describe("storage down for longer than the settler's lease", () => {
  let short: FaultWorld;
  beforeAll(async () => {
    // A lease of 3 s: the settler sends only while its last renewal is under 2 s old.
    short = await startFaultWorld({ env: { SETTLER_LEASE_MS: "3000" } });
  });
  afterAll(async () => {
    await short?.stop();
  });

  it("pauses the settler's sending (its lease may have passed to another settler) and resumes it once storage answers: the charge lands once", async () => {
    const shortListing = await short.publishConnected("lease-outage", "per_query");
    const shortRenter = await short.renter();
    await short.buy(shortRenter, shortListing, shortListing.priceWei * 3n);
    const { chain, queue } = short.ctx.services;
    const ref = chargeRefHex(Number.MAX_SAFE_INTEGER - 1024 - Math.floor(Math.random() * 1000));
    const charged = async () => (await chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { runRef: ref }, fromBlock: 0n, toBlock: "latest" })).length;
    await short.dynamo.kill();
    try {
      // Past two thirds of the lease without a renewal: the settler holds what it receives.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const since = (await chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
      await queue.send(short.ctx.config.SETTLEMENT_QUEUE_URL, chargeMessageBody({ v: 1, run_id: `run_${"ab".repeat(16)}`, listing: shortListing.onChainId, buyer: shortRenter.account.address, ref, max_price: shortListing.priceWei.toString(), since_block: since.toString() }));
      // Bounded: the settler receives within a second and would send at once on this chain.
      await expect.poll(() => queue.approximateCount(short.ctx.config.SETTLEMENT_QUEUE_URL), { timeout: 10_000 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await charged()).toBe(0);
    } finally {
      await short.dynamo.start();
    }
    await until("the settler to send once storage answers", async () => (await charged()) === 1, 30_000, 100);
    await until("the charge's message to be deleted", async () => (await queue.approximateCount(short.ctx.config.SETTLEMENT_QUEUE_URL)) === 0, 30_000, 100);
    expect(await charged()).toBe(1);
    expect(await short.balanceOf(shortListing, shortRenter.account.address)).toBe(shortListing.priceWei * 2n);
  }, 90_000);
});
