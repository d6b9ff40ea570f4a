// The Idempotency-Key protocol against an in-memory store and a clock the test moves: no emulator. The
// DynamoDB store keeps the same conditions (idempotency.store.ts); test/execution/execute.test.ts runs
// the protocol over it end to end.
import type { Address } from "viem";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../errors.ts";
import type { RunRecord } from "../runs/run.ts";
import {
  claimedAtOf,
  claimedRun,
  claimIdempotencyKey,
  claimOf,
  CLAIM_TO_RUN_MS,
  findIdempotentRun,
  followStep,
  IDEMPOTENCY_TTL_SECONDS,
  IdempotencyKeyClaimedError,
  keyState,
  releaseIdempotencyKey,
  waitForRun,
  type ClaimedRuns,
  type Clock,
  type IdempotencyRecord,
  type IdempotencyStore,
} from "./protocol.ts";

const WALLET = "0x00000000000000000000000000000000000000aa" as Address;
const BODY = "hash-of-the-body";

/** A clock whose sleeps move time on at once; `onSleep` runs before each one returns. */
function testClock(start = 1_700_000_000_000): Clock & { onSleep?: (now: number) => void } {
  const clock: Clock & { onSleep?: (now: number) => void } = {
    now: () => current,
    sleep: async (ms) => {
      current += ms;
      clock.onSleep?.(current);
    },
  };
  let current = start;
  return clock;
}

/** The store's conditions, kept in a map: a claim succeeds when no claim is live at `nowSeconds`. */
function memoryKeys(): IdempotencyStore & { records: Map<string, IdempotencyRecord> } {
  const records = new Map<string, IdempotencyRecord>();
  const id = (wallet: Address, key: string) => `${wallet.toLowerCase()}#${key}`;
  return {
    records,
    get: async (wallet, key) => records.get(id(wallet, key)) ?? null,
    claim: async (wallet, key, record, nowSeconds) => {
      const found = records.get(id(wallet, key));
      if (found && found.ttl > nowSeconds) throw new IdempotencyKeyClaimedError(found);
      records.set(id(wallet, key), record);
    },
    release: async (wallet, key, runId) => {
      if (records.get(id(wallet, key))?.run_id !== runId) return false;
      records.delete(id(wallet, key));
      return true;
    },
  };
}

/** Runs kept in a map; a barred id holds a marker that no run can replace. */
function memoryRuns(): ClaimedRuns & { start(runId: string, status?: RunRecord["status"]): boolean; barred: Set<string>; runs: Map<string, RunRecord> } {
  const runs = new Map<string, RunRecord>();
  const barred = new Set<string>();
  return {
    runs,
    barred,
    start(runId, status = "running") {
      if (runs.has(runId) || barred.has(runId)) return false;
      runs.set(runId, { run_id: runId, status } as RunRecord);
      return true;
    },
    get: async (runId) => runs.get(runId) ?? null,
    bar: async (runId) => {
      if (runs.has(runId) || barred.has(runId)) return "exists";
      barred.add(runId);
      return "barred";
    },
  };
}

describe("claiming an Idempotency-Key", () => {
  it("gives an unclaimed key to the first request, whose run it then names", async () => {
    const keys = memoryKeys();
    const clock = testClock();
    expect(keyState(await keys.get(WALLET, "k"), null, clock.now())).toBe("unclaimed");
    expect(await claimIdempotencyKey(keys, WALLET, "k", BODY, "run_a", clock)).toBe("run_a");
    const record = await keys.get(WALLET, "k");
    expect(record).toEqual({ body_hash: BODY, run_id: "run_a", claimed_at: clock.now(), ttl: Math.floor(clock.now() / 1000) + IDEMPOTENCY_TTL_SECONDS });
    expect(keyState(record, null, clock.now())).toBe("in_progress");
    expect(await findIdempotentRun(keys, WALLET, "k", BODY, clock)).toBe("run_a");
  });

  it("sends a second request with the same body to the first one's run, and refuses another body with 409", async () => {
    const keys = memoryKeys();
    const clock = testClock();
    await claimIdempotencyKey(keys, WALLET, "k", BODY, "run_a", clock);
    expect(await claimIdempotencyKey(keys, WALLET, "k", BODY, "run_b", clock)).toBe("run_a");
    const refused = await claimIdempotencyKey(keys, WALLET, "k", "another body", "run_c", clock).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: "idempotency_key_reused", status: 409 });
    await expect(findIdempotentRun(keys, WALLET, "k", "another body", clock)).rejects.toMatchObject({ code: "idempotency_key_reused" });
    expect((await keys.get(WALLET, "k"))!.run_id).toBe("run_a");
  });

  it("reads a claim past its 24 hours as expired and lets a new request take it over, whatever its body", async () => {
    const keys = memoryKeys();
    const clock = testClock();
    await claimIdempotencyKey(keys, WALLET, "k", BODY, "run_a", clock);
    await clock.sleep(IDEMPOTENCY_TTL_SECONDS * 1000);
    expect(keyState(await keys.get(WALLET, "k"), null, clock.now())).toBe("expired");
    expect(await findIdempotentRun(keys, WALLET, "k", "another body", clock)).toBeNull();
    expect(await claimIdempotencyKey(keys, WALLET, "k", "another body", "run_b", clock)).toBe("run_b");
    expect(keyState(await keys.get(WALLET, "k"), null, clock.now())).toBe("in_progress");
  });

  it("answers 503 when the claim that refused it was gone before it could be read", async () => {
    const vanishing: IdempotencyStore = { ...memoryKeys(), claim: async () => Promise.reject(new IdempotencyKeyClaimedError(null)) };
    const refused = await claimIdempotencyKey(vanishing, WALLET, "k", BODY, "run_a").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "service_unavailable", status: 503, headers: { "Retry-After": "1" } });
  });

  it("lets only the claimant give the key back", async () => {
    const keys = memoryKeys();
    await claimIdempotencyKey(keys, WALLET, "k", BODY, "run_a");
    await releaseIdempotencyKey(keys, WALLET, "k", "run_other");
    expect((await keys.get(WALLET, "k"))?.run_id).toBe("run_a");
    await releaseIdempotencyKey(keys, WALLET, "k", "run_a");
    expect(await keys.get(WALLET, "k")).toBeNull();
  });

  it("says completed once the claimed run has finished", () => {
    const record: IdempotencyRecord = { body_hash: BODY, run_id: "run_a", ttl: 2_000_000_000, claimed_at: 1 };
    expect(keyState(record, { run_id: "run_a", status: "running" } as RunRecord, 0)).toBe("in_progress");
    expect(keyState(record, { run_id: "run_a", status: "failed" } as RunRecord, 0)).toBe("completed");
    expect(keyState(record, { run_id: "run_other", status: "completed" } as RunRecord, 0)).toBe("in_progress");
  });

  it("dates a claim written before claimed_at was recorded from its expiry", () => {
    const record: IdempotencyRecord = { body_hash: BODY, run_id: "run_a", ttl: 1_700_086_400 };
    expect(claimedAtOf(record, "run_a", 1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(claimedAtOf(record, "run_other", 1_700_000_000_000)).toBeNull();
    expect(claimedAtOf(record, "run_a", 1_700_086_400_000)).toBeNull();
  });
});

describe("following another request's claim", () => {
  async function claimed(keys: ReturnType<typeof memoryKeys>, clock: Clock, runId = "run_a") {
    await claimIdempotencyKey(keys, WALLET, "k", BODY, runId, clock);
    return { runId, claim: claimOf(keys, WALLET, "k", runId, clock) };
  }

  it("waits while the run has not appeared, then follows it until it finishes", async () => {
    const keys = memoryKeys();
    const runs = memoryRuns();
    const clock = testClock();
    const existing = await claimed(keys, clock);
    expect((await followStep(runs, existing, CLAIM_TO_RUN_MS, clock)).state).toBe("awaiting_run");
    let sleeps = 0;
    clock.onSleep = () => {
      sleeps++;
      if (sleeps === 3) runs.start("run_a");
      if (sleeps === 10) runs.runs.set("run_a", { run_id: "run_a", status: "completed" } as RunRecord);
    };
    expect((await claimedRun(runs, existing, CLAIM_TO_RUN_MS, clock)).status).toBe("running");
    expect((await followStep(runs, existing, CLAIM_TO_RUN_MS, clock)).state).toBe("running");
    expect((await waitForRun(runs, existing, 60_000, 100, clock)).status).toBe("completed");
    expect((await followStep(runs, existing, CLAIM_TO_RUN_MS, clock)).state).toBe("completed");
  });

  it("answers 503 when the first request gave the key back before its run started", async () => {
    const keys = memoryKeys();
    const runs = memoryRuns();
    const clock = testClock();
    const existing = await claimed(keys, clock);
    clock.onSleep = () => void keys.records.clear();
    const refused = await claimedRun(runs, existing, CLAIM_TO_RUN_MS, clock).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "service_unavailable", status: 503 });
    expect((refused as Error).message).toMatch(/refused before its run started/);
    expect((await followStep(runs, existing, CLAIM_TO_RUN_MS, clock)).state).toBe("released");
  });

  it("gives up a run that did not appear in time: bars its id first, frees the key, answers 503", async () => {
    const keys = memoryKeys();
    const runs = memoryRuns();
    const clock = testClock();
    const existing = await claimed(keys, clock);
    const givenUp = await claimedRun(runs, existing, CLAIM_TO_RUN_MS, clock).catch((error: unknown) => error);
    expect(givenUp).toMatchObject({ code: "service_unavailable", status: 503 });
    expect((givenUp as Error).message).toMatch(/nothing ran and nothing was charged/);
    expect(runs.barred.has("run_a")).toBe(true);
    expect(runs.start("run_a")).toBe(false); // the stuck request can no longer start it
    expect(await keys.get(WALLET, "k")).toBeNull();
    expect(await claimIdempotencyKey(keys, WALLET, "k", BODY, "run_b", clock)).toBe("run_b");
  });

  it("follows a run that started just before it would have been barred, and never bars it", async () => {
    const keys = memoryKeys();
    const runs = memoryRuns();
    const clock = testClock();
    const existing = await claimed(keys, clock);
    await clock.sleep(CLAIM_TO_RUN_MS);
    // The run's record lands between the follower's read of it and its bar.
    const racing: ClaimedRuns = { get: runs.get, bar: async (runId) => (runs.start(runId), runs.bar(runId)) };
    expect((await claimedRun(racing, existing, CLAIM_TO_RUN_MS, clock)).run_id).toBe("run_a");
    expect(runs.barred.has("run_a")).toBe(false);
    expect((await keys.get(WALLET, "k"))?.run_id).toBe("run_a");
  });

  it("returns the run still running when the wait runs out", async () => {
    const keys = memoryKeys();
    const runs = memoryRuns();
    const clock = testClock();
    const existing = await claimed(keys, clock);
    runs.start("run_a");
    const started = clock.now();
    expect((await waitForRun(runs, existing, 1_000, 100, clock)).status).toBe("running");
    expect(clock.now() - started).toBe(1_000);
  });
});
