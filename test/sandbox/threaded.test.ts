// The sandbox pool on its own thread (the pool the service uses locally): the same fresh-process-per-run
// behaviour as local.ts, relayed by message, and no spawn() ever on the caller's thread.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThreadedSandboxPool } from "../../src/adapters/sandbox/threaded.ts";
import type { LocalSandboxPool } from "../../src/adapters/sandbox/local.ts";
import type { RunEvent, RunSpec } from "../../src/adapters/sandbox/port.ts";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
const fixture = (name: string) => join(fixtures, `${name}.mjs`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let counter = 0;
const spec = (entry: string, payload: unknown = {}, overrides: Partial<RunSpec> = {}): RunSpec => ({ runId: `threaded-${++counter}`, entry: fixture(entry), payload, timeoutMs: 10_000, memoryMb: 128, ...overrides });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("bootstrap.cjs");
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await sleep(5);
  }
}

let pool: LocalSandboxPool;
let callerSpawns = 0;
const realSpawn = childProcess.spawn;

beforeAll(async () => {
  // Every spawn() made on this (the caller's) thread is counted; the pool must make none here.
  childProcess.spawn = function countedSpawn(this: unknown, ...args: Parameters<typeof realSpawn>) {
    callerSpawns++;
    return realSpawn.apply(this, args);
  } as typeof realSpawn;
  syncBuiltinESMExports();
  pool = createThreadedSandboxPool({ warm: 2, maxWarm: 4, allowFsRead: [fixtures] });
  await until(() => pool.stats().idle >= 2);
});

afterAll(async () => {
  await pool?.close();
  childProcess.spawn = realSpawn;
  syncBuiltinESMExports();
});

describe("threaded sandbox pool", () => {
  it("runs an entry in a pre-started sandbox and relays its output in order", async () => {
    const events: RunEvent[] = [];
    const idle = pool.idlePids();
    const result = await pool.run(spec("deltas", { parts: ["al", "pha", " be", "ta"] }), (event) => events.push(event));
    expect(result.status).toBe("completed");
    expect(result.output).toMatchObject({ joined: "alpha beta" });
    expect(events.map((e) => e.delta)).toEqual(["al", "pha", " be", "ta"]);
    expect(idle).toContain(result.pid);
    expect(result.entryInvokedAt).toBeGreaterThanOrEqual(result.startedAt);
  });

  it("never hands a sandbox a second run: concurrent runs get distinct processes that are gone afterwards", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => pool.run(spec("echo", { i }))));
    const pids = results.map((r) => (r.output as { pid: number }).pid);
    expect(results.every((r) => r.status === "completed")).toBe(true);
    expect(new Set(pids).size).toBe(8);
    expect(results.map((r) => (r.output as { payload: { i: number } }).payload.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it("kills a run at its timeout and reports it failed", async () => {
    const events: RunEvent[] = [];
    const result = await pool.run(spec("sleep-forever", {}, { timeoutMs: 1_000 }), (event) => events.push(event));
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("timeout");
    const pid = Number(events[0]?.delta);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });

  it("reports an entry's error and a crash as failed runs", async () => {
    const thrown = await pool.run(spec("throw"));
    expect(thrown).toMatchObject({ status: "failed", error: { code: "entry_error" } });
    const crashed = await pool.run(spec("crash"));
    expect(crashed.status).toBe("failed");
    expect(crashed.error?.code).toBe("crashed");
  });

  it("answers a payload that cannot be sent as a failed run, without starting anything", async () => {
    const spawned = pool.stats().spawned;
    const result = await pool.run(spec("echo", { fn: () => 1 }));
    expect(result).toMatchObject({ status: "failed", error: { code: "entry_error", message: "the payload is not JSON-serialisable" } });
    expect(pool.stats().spawned).toBe(spawned);
  });

  it("refuses a malformed spec the way the local pool does", async () => {
    await expect(pool.run({ ...spec("echo"), entry: "relative/path.mjs" })).rejects.toThrow(/absolute path/);
  });

  it("has started every sandbox off the caller's thread", () => {
    expect(pool.stats().spawned).toBeGreaterThan(10);
    expect(callerSpawns).toBe(0);
  });

  it("stops every sandbox on close and refuses runs afterwards", async () => {
    const other = createThreadedSandboxPool({ warm: 2, allowFsRead: [fixtures] });
    await until(() => other.idlePids().length >= 2);
    const pids = other.idlePids();
    await other.close();
    for (const pid of pids) expect(alive(pid)).toBe(false);
    await expect(other.run(spec("echo"))).rejects.toThrow(/closed/);
  });
});
