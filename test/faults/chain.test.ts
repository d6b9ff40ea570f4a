// Faults of the chain: the link to the node is cut while per-query runs are in flight and comes back
// with its state (a real outage, not a reset chain); the authority cannot pay gas for the charge.
// After each: nothing left running or held, every charge matches exactly one run, no output unpaid.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestClient, http, parseEther } from "viem";
import { until } from "../support/until.ts";
import { expectMoneyAndRecordsIntact, startFaultWorld, type FaultWorld, type Renter } from "./support.ts";
import type { PublishedAgent } from "../support/agents.ts";

let world: FaultWorld;

beforeAll(async () => {
  world = await startFaultWorld();
});

afterAll(async () => {
  await world?.stop();
});

async function runDetail(renter: Renter, runId: string): Promise<Record<string, unknown>> {
  return (await (await world.app.request(`/v1/runs/${runId}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as Record<string, unknown>;
}

describe("the chain stops mid-run and comes back", () => {
  let listing: PublishedAgent;
  let renter: Renter;
  beforeAll(async () => {
    listing = await world.publishConnected("chain-cut", "per_query");
    renter = await world.renter();
    await world.buy(renter, listing, listing.priceWei * 4n);
  });

  it.each([
    ["the synchronous route", false],
    ["the streaming route", true],
  ])("on %s: the finished run answers completed with its charge pending and output withheld, and is charged exactly once when the chain returns", async (_route, stream) => {
    const task = stream ? "stream while the chain is cut" : "run while the chain is cut";
    const gate = world.gates.hold(task);
    const before = await world.balanceOf(listing, renter.account.address);
    const answering = world.execute(renter, { agent_id: listing.agent_id, task }, { stream });
    await until("the agent to receive the run", () => gate.arrived === 1);
    world.chainLink.cut();
    gate.open();
    const answer = await answering;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ run_id: answer.runId, status: "completed", output: null, settlement: "pending" });
    expect(await runDetail(renter, answer.runId!)).toMatchObject({ status: "completed", output: null, settlement: "pending" });

    world.chainLink.restore();
    expect(await world.balanceOf(listing, renter.account.address)).toBe(before);
    await world.recover();
    const released = await runDetail(renter, answer.runId!);
    expect(released).toMatchObject({ status: "completed", settlement: "settled", output: { findings: stream ? ["alpha", "beta", "gamma"] : [`done: ${task}`] } });
    expect(BigInt(released.cost_wei as number)).toBe(listing.priceWei);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(before - listing.priceWei);
    await expectMoneyAndRecordsIntact(world);
  });

  it("refuses a run admitted while the chain is cut with 503, running nothing and holding nothing", async () => {
    const delivered = world.deliveries.length;
    world.chainLink.cut();
    try {
      const answer = await world.execute(renter, { agent_id: listing.agent_id, task: "admitted while cut" });
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: "service_unavailable" } });
    } finally {
      world.chainLink.restore();
    }
    expect(world.deliveries.length).toBe(delivered);
    await expectMoneyAndRecordsIntact(world);
  });
});

describe("the authority runs out of gas", () => {
  it("answers the finished run completed with its charge pending; a retry without Idempotency-Key is a new run; each is charged exactly once when gas returns", async () => {
    const listing = await world.publishConnected("no-gas", "per_query");
    const renter = await world.renter();
    const deposit = listing.priceWei * 3n;
    await world.buy(renter, listing, deposit);
    const admin = createTestClient({ mode: "hardhat", transport: http(inject("rpcUrl")) });
    const authority = world.ctx.authority.address;
    await admin.setBalance({ address: authority, value: 0n });
    const body = { agent_id: listing.agent_id, task: "charge me without gas" };
    let first, retry;
    try {
      first = await world.execute(renter, body);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: "completed", output: null, settlement: "pending" });
      // The same body again, without an Idempotency-Key: a new request, so a new run.
      retry = await world.execute(renter, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ status: "completed", output: null, settlement: "pending" });
      expect(retry.runId).not.toBe(first.runId);
      expect(await world.balanceOf(listing, renter.account.address)).toBe(deposit);
    } finally {
      await admin.setBalance({ address: authority, value: parseEther("1000") });
    }
    await world.recover();
    for (const answer of [first, retry]) {
      const detail = await runDetail(renter, answer.runId!);
      expect(detail).toMatchObject({ status: "completed", settlement: "settled", output: { findings: [`done: ${body.task}`] } });
      expect(BigInt(detail.cost_wei as number)).toBe(listing.priceWei);
    }
    // Two runs, two charges: the first was not charged again by the retry or by the settlement pass.
    expect(await world.balanceOf(listing, renter.account.address)).toBe(deposit - 2n * listing.priceWei);
    await expectMoneyAndRecordsIntact(world);
  });
});
