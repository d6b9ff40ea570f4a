// The counter of dense charge references on the emulator: blocks claimed with one conditional update
// each, aligned, never handed out twice however many processes claim at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { ChargeRefsExhaustedError, claimChargeRefBlock, FIRST_CHARGE_REF } from "../../src/execution/money/charge-refs.store.ts";
import { CHARGE_REF_BLOCK, createChargeRefs } from "../../src/execution/money/charge-refs.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";

const worlds: World[] = [];
/** Fresh services on their own tables, the settler not running: the counter starts where a new stack's does. */
async function freshServices(): Promise<TestContext> {
  const world = await startWorld({ serve: false, settler: false });
  worlds.push(world);
  return world.ctx;
}

let ctx: TestContext;
beforeAll(async () => {
  ctx = await freshServices();
});
afterAll(async () => {
  await Promise.all(worlds.map((world) => world.close()));
});

describe("the charge reference counter", () => {
  it("hands out aligned blocks of 256 from 256 on, each block once, to concurrent claims", async () => {
    const starts = await Promise.all(Array.from({ length: 40 }, () => claimChargeRefBlock(ctx.services.tables, CHARGE_REF_BLOCK)));
    expect(new Set(starts).size).toBe(40);
    for (const start of starts) expect(start % CHARGE_REF_BLOCK).toBe(0);
    expect(Math.min(...starts)).toBe(FIRST_CHARGE_REF);
    expect(Math.max(...starts)).toBe(FIRST_CHARGE_REF + 39 * CHARGE_REF_BLOCK);
    const counter = await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("meta"), Key: { pk: "counter", sk: "charge_refs" }, ConsistentRead: true }));
    expect(counter.Item?.next_ref).toBe(FIRST_CHARGE_REF + 40 * CHARGE_REF_BLOCK);
  });

  it("gives three processes' runs 3,000 distinct references between them, each process within its own blocks", async () => {
    const processes = [0, 1, 2].map(() => createChargeRefs(() => claimChargeRefBlock(ctx.services.tables, CHARGE_REF_BLOCK)));
    const taken = await Promise.all(processes.map((refs) => Promise.all(Array.from({ length: 1_000 }, () => refs.next()))));
    const all = taken.flat();
    expect(new Set(all).size).toBe(3_000);
    // No bitmap word is shared by two processes: each word is one process's block.
    const words = taken.map((refs) => new Set(refs.map((ref) => Math.floor(ref / CHARGE_REF_BLOCK))));
    for (const word of words[0]!) expect(words[1]!.has(word) || words[2]!.has(word)).toBe(false);
    for (const word of words[1]!) expect(words[2]!.has(word)).toBe(false);
  });

  it("refuses a block size that would break the alignment", async () => {
    for (const size of [0, 3, 100, 131_072, 1.5]) await expect(claimChargeRefBlock(ctx.services.tables, size)).rejects.toThrow(RangeError);
  });

  it("stops before references stop being exact numbers, and says so", async () => {
    const { services } = await freshServices();
    await services.tables.doc.send(new PutCommand({ TableName: services.tables.name("meta"), Item: { pk: "counter", sk: "charge_refs", next_ref: Number.MAX_SAFE_INTEGER - 1 } }));
    await expect(claimChargeRefBlock(services.tables, CHARGE_REF_BLOCK)).rejects.toBeInstanceOf(ChargeRefsExhaustedError);
  });
});
