// The settler's own rules, on the shared chain and emulators: what it does with messages that are not
// charges, with a charge past its last moment, with a charge the chain has already refused (a refusal is
// final, even after the renter could pay), and with one handed over twice; and the charge references runs
// are admitted with.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestClient, http, type Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { chargeMessageBody, type ChargeMessage } from "../../src/execution/money/charge-message.ts";
import { CHARGE_REF_BLOCK, chargeRefHex } from "../../src/execution/money/charge-refs.ts";
import { createSettler } from "../../src/execution/settler/settler.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { createLogger } from "../../src/logger.ts";
import { startJobs } from "../../src/jobs.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";

let world: World;
let listing: PublishedAgent;
const lines: Record<string, unknown>[] = [];
let nextRef = 0;

beforeAll(async () => {
  // The test drives the settler itself, one pass at a time.
  world = await startWorld({ serve: false, settler: false, agent: true });
  world.services.logger = createLogger("info", (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  listing = await world.publishConnected("settler-rules", { rental: "per_query" });
  // References of a block no process of this world takes.
  nextRef = (1 << 20) + Math.floor(Math.random() * 1000) * CHARGE_REF_BLOCK;
}, 120_000);

const queueUrl = () => world.config.SETTLEMENT_QUEUE_URL;

async function head(): Promise<bigint> {
  return world.services.chain.client.getBlockNumber({ cacheTime: 0 });
}

function charge(buyer: Hex, fields: Partial<ChargeMessage> = {}): ChargeMessage {
  return { v: 1, run_id: `run_${randomBytes(16).toString("hex")}`, listing: listing.onChainId, buyer, ref: chargeRefHex(nextRef++), max_price: listing.priceWei.toString(), ...fields };
}

/** One pass of a settler over everything on the queue now. */
function pass() {
  return createSettler(world.services).run({ deadline: Number.POSITIVE_INFINITY, drain: true });
}

async function decisionsOf(ref: Hex) {
  const { chain } = world.services;
  const [consumed, refused] = await Promise.all([
    chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { runRef: ref }, fromBlock: 0n, toBlock: "latest" }),
    chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryRefused", args: { runRef: ref }, fromBlock: 0n, toBlock: "latest" }),
  ]);
  return { charged: consumed.length, refused: refused.length };
}

describe("the settler and bad input", () => {
  it("drops a message that is not a charge (logged, deleted), sends nothing for it, and keeps settling the rest", async () => {
    const renter = await world.account();
    await world.market.purchasePerQuery(renter, listing.onChainId, listing.priceWei * 3n);
    const good = charge(renter.address);
    const bad = [
      "not json",
      "{}",
      JSON.stringify({ ...good, v: 2 }),
      JSON.stringify({ ...good, ref: "0x1234" }),
      JSON.stringify({ ...good, buyer: "not an address" }),
      JSON.stringify({ ...good, max_price: "0" }),
      JSON.stringify({ ...good, max_price: "-1" }),
      JSON.stringify({ ...good, run_id: "run_x" }),
      JSON.stringify({ ...good, extra: true }),
      JSON.stringify({ ...good, pad: "x".repeat(2_000) }),
    ];
    lines.length = 0;
    await world.services.queue.sendMany(queueUrl(), [...bad, chargeMessageBody(good)]);
    const tally = await pass();
    expect(tally).toMatchObject({ leased: true, charged: 1, refused: 0, discarded: bad.length });
    expect(await decisionsOf(good.ref)).toEqual({ charged: 1, refused: 0 });
    const dropped = lines.filter((line) => typeof line.message === "string" && line.message.startsWith("settlement message dropped"));
    expect(dropped).toHaveLength(bad.length);
    for (const line of dropped) expect(line).toMatchObject({ level: "error", reason: expect.any(String) });
    // Nothing is left on the queue: every bad message was deleted, the good one once charged.
    expect(await world.services.queue.approximateCount(queueUrl())).toBe(0);
  }, 60_000);

  it("drops a charge past its last moment (its run may have been finished by the stale-run sweep) without sending it", async () => {
    const renter = await world.account();
    await world.market.purchasePerQuery(renter, listing.onChainId, listing.priceWei * 3n);
    const late = charge(renter.address, { not_after: Date.now() - 1 });
    const timely = charge(renter.address, { not_after: Date.now() + 600_000 });
    await world.services.queue.sendMany(queueUrl(), [chargeMessageBody(late), chargeMessageBody(timely)]);
    const tally = await pass();
    expect(tally).toMatchObject({ charged: 1, discarded: 1 });
    expect(await decisionsOf(late.ref)).toEqual({ charged: 0, refused: 0 });
    expect(await decisionsOf(timely.ref)).toEqual({ charged: 1, refused: 0 });
  }, 60_000);
});

describe("a charge handed over again", () => {
  it("is never charged after the chain refused it, even once the renter can pay", async () => {
    const renter = await world.account();
    // No rental yet: the contract refuses the charge (CredentialNotFound).
    const refused = charge(renter.address, { since_block: String((await head()) + 1n) });
    await world.services.queue.send(queueUrl(), chargeMessageBody(refused));
    expect(await pass()).toMatchObject({ refused: 1, charged: 0 });
    expect(await decisionsOf(refused.ref)).toEqual({ charged: 0, refused: 1 });
    // The renter rents; blocks pass; the same charge is handed over again (a settlement pass, or the
    // queue's redelivery to another settler).
    await world.market.purchasePerQuery(renter, listing.onChainId, listing.priceWei * 3n);
    await createTestClient({ mode: "hardhat", transport: http(world.rpcUrl) }).mine({ blocks: 5 });
    await world.services.queue.send(queueUrl(), chargeMessageBody(refused));
    const again = await pass();
    expect(again).toMatchObject({ charged: 0, refused: 0, skipped: 1, batches: 0 });
    expect(await decisionsOf(refused.ref)).toEqual({ charged: 0, refused: 1 });
    const [balance] = await world.services.chain.client.readContract({ address: world.services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listing.onChainId, renter.address] });
    expect(balance).toBe(listing.priceWei * 3n);
  }, 60_000);

  it("is charged once: two copies in one pass go in one charge, a copy after it lands is found charged and not sent", async () => {
    const renter = await world.account();
    await world.market.purchasePerQuery(renter, listing.onChainId, listing.priceWei * 3n);
    const once = charge(renter.address, { since_block: String((await head()) + 1n) });
    await world.services.queue.sendMany(queueUrl(), [chargeMessageBody(once), chargeMessageBody(once)]);
    expect(await pass()).toMatchObject({ charged: 1, batches: 1 });
    await createTestClient({ mode: "hardhat", transport: http(world.rpcUrl) }).mine({ blocks: 5 });
    await world.services.queue.send(queueUrl(), chargeMessageBody(once));
    expect(await pass()).toMatchObject({ charged: 0, skipped: 1, batches: 0 });
    expect(await decisionsOf(once.ref)).toEqual({ charged: 1, refused: 0 });
    expect(await world.services.queue.approximateCount(queueUrl())).toBe(0);
  }, 60_000);
});

describe("charge references at admission", () => {
  it("gives each per-task run the next reference of its process's block, recorded with the run and charged under it; a one-time run gets none", async () => {
    const perTask = await world.publishConnected("refs-per-task", { rental: "per_query" });
    const oneTime = await world.publishConnected("refs-one-time", { rental: "one_time" });
    const renter = await world.renter();
    await world.rent(renter.account, perTask, { deposit: perTask.priceWei * 10n });
    await world.rent(renter.account, oneTime);
    const run = async (agentId: string) => {
      const res = await world.app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agentId, task: "ref" }) });
      expect(res.status).toBe(200);
      return (await res.json()) as { run_id: string; status: string; cost_wei: number };
    };
    const settler = startJobs(world.services, { only: ["settler"] });
    let runs;
    try {
      runs = await Promise.all(Array.from({ length: 3 }, () => run(perTask.agent_id)));
    } finally {
      await settler.stop();
    }
    const refs: number[] = [];
    for (const answer of runs) {
      expect(answer).toMatchObject({ status: "completed", cost_wei: Number(perTask.priceWei) });
      const record = (await getRun(world.services.tables, answer.run_id))!;
      expect(record.charge_ref).toMatch(/^[1-9][0-9]*$/);
      refs.push(Number(record.charge_ref));
      expect(await decisionsOf(chargeRefHex(record.charge_ref!))).toEqual({ charged: 1, refused: 0 });
    }
    // One process's runs: distinct references of one aligned block (one word of the contract's marks).
    expect(new Set(refs).size).toBe(3);
    expect(new Set(refs.map((ref) => Math.floor(ref / CHARGE_REF_BLOCK))).size).toBe(1);
    const free = await run(oneTime.agent_id);
    expect((await getRun(world.services.tables, free.run_id))!.charge_ref).toBeUndefined();
  }, 60_000);
});
