// x402 payment reservations on the emulator: of many requests carrying the same authorization at the
// same moment exactly one gets the run; a replay after it is refused; a failed run gives its
// reservation back, a settled one never.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPayment, markPaymentSettled, releasePayment, reservePayment } from "../../src/x402/payment.store.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
});
afterAll(async () => {
  await world?.close();
});

const token = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const;
const payer = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const nonce = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as const;
const ttl = Math.floor(Date.now() / 1000) + 86_400;

describe("x402 payment reservations", () => {
  it("give one run to twenty identical payments at the same moment, and none to a replay", async () => {
    const tables = world.ctx.services.tables;
    const won = await Promise.all(Array.from({ length: 20 }, (_, i) => reservePayment(tables, { token, payer, nonce: nonce(1), run_id: `run_${i}`, ttl })));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = `run_${won.indexOf(true)}`;
    expect(await getPayment(tables, token, payer, nonce(1))).toMatchObject({ run_id: winner, state: "reserved" });
    expect(await reservePayment(tables, { token, payer, nonce: nonce(1), run_id: "run_late", ttl })).toBe(false);
  });

  it("give a failed run's reservation back (the authorization may be presented again), only to that run", async () => {
    const tables = world.ctx.services.tables;
    expect(await reservePayment(tables, { token, payer, nonce: nonce(2), run_id: "run_a", ttl })).toBe(true);
    expect(await releasePayment(tables, token, payer, nonce(2), "run_other")).toBe(false);
    expect(await releasePayment(tables, token, payer, nonce(2), "run_a")).toBe(true);
    expect(await reservePayment(tables, { token, payer, nonce: nonce(2), run_id: "run_b", ttl })).toBe(true);
  });

  it("never give back a settled payment", async () => {
    const tables = world.ctx.services.tables;
    expect(await reservePayment(tables, { token, payer, nonce: nonce(3), run_id: "run_s", ttl })).toBe(true);
    expect(await markPaymentSettled(tables, token, payer, nonce(3), "run_s", `0x${"ab".repeat(32)}`)).toBe(true);
    expect(await releasePayment(tables, token, payer, nonce(3), "run_s")).toBe(false);
    expect(await getPayment(tables, token, payer, nonce(3))).toMatchObject({ state: "settled", transaction: `0x${"ab".repeat(32)}` });
  });
});
