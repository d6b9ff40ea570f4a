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

  it("down for longer than the service's retries: once it is back, the recovery passes leave no run running, nothing held and no charge without its run", async () => {
    const { gate, answering } = await runHeldAtAgent("finish during a long outage");
    await world.dynamo.kill();
    gate.open();
    const answer = await answering;
    await world.dynamo.start();
    // Whatever the answer was, it gave no output that is not paid for (invariant 4 checks it by run id).
    expect([200, 500, 503]).toContain(answer.status);
    await world.recover();
    await expectMoneyAndRecordsIntact(world);
  }, 90_000);
});
