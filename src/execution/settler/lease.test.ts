import { describe, expect, it } from "vitest";
import { createSettlerLease, memoryLeaseStore } from "./lease.ts";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe("the settler's lease", () => {
  it("lets one settler hold it; a second one started meanwhile leaves at once when the holder has no end in sight", async () => {
    const store = memoryLeaseStore();
    const c = clock();
    const a = createSettlerLease(store, { owner: "a", ttlMs: 15_000, now: c.now });
    const b = createSettlerLease(store, { owner: "b", ttlMs: 15_000, now: c.now });
    expect(await a.acquire({ endsAt: 0, deadline: Infinity, waitForEndMs: 0 })).toBe(true);
    expect(a.token).toBe(1);
    expect(await b.acquire({ endsAt: 0, deadline: Infinity, waitForEndMs: 1_000 })).toBe(false);
    expect(b.token).toBeUndefined();
    expect(store.record).toMatchObject({ owner: "a", token: 1 });
  });

  it("is taken over once its holder stops renewing it, and the old holder can no longer renew it", async () => {
    const store = memoryLeaseStore();
    const c = clock();
    const a = createSettlerLease(store, { owner: "a", ttlMs: 15_000, now: c.now });
    const b = createSettlerLease(store, { owner: "b", ttlMs: 15_000, now: c.now });
    await a.acquire({ endsAt: 0, deadline: Infinity, waitForEndMs: 0 });
    c.advance(10_000);
    expect(await a.renew(0)).toBe(true);
    c.advance(14_000);
    expect(await b.acquire({ endsAt: 0, deadline: Infinity, waitForEndMs: 0 })).toBe(false);
    c.advance(1_001);
    expect(await b.acquire({ endsAt: 0, deadline: Infinity, waitForEndMs: 0 })).toBe(true);
    expect(b.token).toBe(2);
    // The old holder wakes up: its renewal is refused, so it stops sending.
    expect(await a.renew(0)).toBe(false);
    expect(a.token).toBeUndefined();
    expect(store.record).toMatchObject({ owner: "b", token: 2 });
  });

  it("hands over at once when the holder gives it up, and a successor waits for a holder about to end", async () => {
    const store = memoryLeaseStore();
    const a = createSettlerLease(store, { owner: "a", ttlMs: 15_000 });
    const b = createSettlerLease(store, { owner: "b", ttlMs: 15_000 });
    await a.acquire({ endsAt: Date.now() + 150, deadline: Infinity, waitForEndMs: 0 });
    const waited = b.acquire({ endsAt: 0, deadline: Date.now() + 5_000, waitForEndMs: 1_000 });
    setTimeout(() => void a.release(), 150);
    const started = Date.now();
    expect(await waited).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(store.record).toMatchObject({ owner: "b", token: 2 });
  });

  it("gives up waiting at its own deadline, and a released lease cannot be released again by its old holder", async () => {
    const store = memoryLeaseStore();
    const a = createSettlerLease(store, { owner: "a", ttlMs: 60_000 });
    const b = createSettlerLease(store, { owner: "b", ttlMs: 60_000 });
    await a.acquire({ endsAt: 0, deadline: Infinity, waitForEndMs: 0 });
    expect(await b.acquire({ endsAt: 0, deadline: Date.now() + 200, waitForEndMs: 120_000 })).toBe(false);
    await a.release();
    await a.release();
    expect(await b.acquire({ endsAt: 0, deadline: Infinity, waitForEndMs: 0 })).toBe(true);
    expect(await store.release("a", 1)).toBe(false);
    expect(store.record).toMatchObject({ owner: "b" });
  });
});
