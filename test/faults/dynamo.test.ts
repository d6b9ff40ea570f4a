// Faults of the DynamoDB emulator: it crashes (SIGKILL) and restarts on the same port and data while
// per-query runs are in flight: while the agent works, at the moment the run finishes and comes back
// within the service's retries, and for longer than those retries. After each, and the recovery passes:
// nothing left running or held, every charge matches exactly one run, no output unpaid.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/until.ts";
import { expectMoneyAndRecordsIntact, startFaultWorld, type FaultWorld, type Renter } from "./support.ts";
import type { PublishedAgent } from "../support/agents.ts";

let world: FaultWorld;
let listing: PublishedAgent;
let renter: Renter;

beforeAll(async () => {
  world = await startFaultWorld();
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
