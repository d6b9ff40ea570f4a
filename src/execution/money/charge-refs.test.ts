import { describe, expect, it } from "vitest";
import { chargeRefHex, createChargeRefs, parseChargeRef } from "./charge-refs.ts";

/** An in-memory counter with the store's contract: each claim a new aligned block. */
function counter(size: number) {
  let next = 256;
  let claims = 0;
  return {
    claim: async () => {
      claims++;
      await new Promise((resolve) => setTimeout(resolve, 1));
      const start = next;
      next += size;
      return start;
    },
    get claims() {
      return claims;
    },
  };
}

describe("charge references", () => {
  it("hands a process's references out in order from aligned blocks, one claim per block", async () => {
    const c = counter(256);
    const refs = createChargeRefs(c.claim, 256);
    const taken: number[] = [];
    for (let i = 0; i < 300; i++) taken.push(await refs.next());
    expect(taken.slice(0, 3)).toEqual([256, 257, 258]);
    expect(taken[255]).toBe(511);
    expect(taken[256]).toBe(512);
    expect(c.claims).toBe(2);
  });

  it("gives every one of many concurrent callers a reference of its own, sharing the claims in flight", async () => {
    const c = counter(256);
    const refs = createChargeRefs(c.claim, 256);
    const taken = await Promise.all(Array.from({ length: 700 }, () => refs.next()));
    expect(new Set(taken).size).toBe(700);
    // 700 references fill two blocks and part of a third: three claims, not one per caller.
    expect(c.claims).toBe(3);
    for (const ref of taken) expect(ref).toBeGreaterThanOrEqual(256);
  });

  it("keeps two processes' references apart (each claims its own blocks of the one counter)", async () => {
    const c = counter(256);
    const a = createChargeRefs(c.claim, 256);
    const b = createChargeRefs(c.claim, 256);
    const [fromA, fromB] = await Promise.all([Promise.all(Array.from({ length: 10 }, () => a.next())), Promise.all(Array.from({ length: 10 }, () => b.next()))]);
    expect(new Set([...fromA, ...fromB]).size).toBe(20);
    // Each process's runs share one bitmap word (reference >> 8).
    expect(new Set(fromA.map((r) => r >> 8)).size).toBe(1);
    expect(new Set(fromB.map((r) => r >> 8)).size).toBe(1);
    expect(fromA[0]! >> 8).not.toBe(fromB[0]! >> 8);
  });

  it("passes a failed claim to its callers and claims again on the next call", async () => {
    let fail = true;
    const refs = createChargeRefs(async () => {
      if (fail) throw new Error("storage down");
      return 1024;
    }, 256);
    await expect(Promise.all([refs.next(), refs.next()])).rejects.toThrow("storage down");
    fail = false;
    expect(await refs.next()).toBe(1024);
  });

  it("writes a reference as the contract's bytes32 runRef and reads a stored one back", () => {
    expect(chargeRefHex(256)).toBe(`0x${"0".repeat(61)}100`);
    expect(chargeRefHex("513")).toBe(`0x${"0".repeat(61)}201`);
    expect(parseChargeRef("256")).toBe(256);
    for (const bad of [undefined, 256, "", "0", "-1", "01", "1.5", "0x100", "99999999999999999", " 256"]) expect(parseChargeRef(bad), String(bad)).toBeUndefined();
  });
});
