// The local sandbox pool: a fresh child process per run (never reused), results and streamed output,
// the timeout kill, failure kinds, escape attempts, warmth, load, the per-listing limiter and cleanup.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalSandboxPool, NODE_BASELINE_MB, type LocalSandboxPool } from "../../src/adapters/sandbox/local.ts";
import type { RunEvent, RunResult, RunSpec } from "../../src/adapters/sandbox/port.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");
const fixtures = join(here, "fixtures");
const fixture = (name: string) => join(fixtures, `${name}.mjs`);
const addonPath = join(root, "node_modules/classic-level/prebuilds/linux-x64/classic-level.node");

/** Every pid a sandbox reported or the pool returned, checked for liveness at the end. */
const pidsSeen = new Set<number>();
let counter = 0;
let pool: LocalSandboxPool;

function spec(entry: string, payload: unknown = {}, overrides: Partial<RunSpec> = {}): RunSpec {
  return { runId: `run-${++counter}`, entry: fixture(entry), payload, timeoutMs: 10_000, memoryMb: 128, ...overrides };
}

async function run(s: RunSpec, events?: RunEvent[]): Promise<RunResult> {
  const result = await pool.run(s, (event) => events?.push(event));
  if (result.pid) pidsSeen.add(result.pid);
  return result;
}

/** `process.kill(pid, 0)` succeeds for a live process; a pid the OS has since handed to an unrelated
 * process (its command line is not our bootstrap) does not count as one of ours. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("bootstrap.cjs");
  } catch {
    return true;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  process.env.SANDBOX_TEST_FAKE_SECRET = "sk-parent-secret-do-not-leak";
  pool = createLocalSandboxPool({ warm: 2, maxWarm: 8, allowFsRead: [fixtures, join(root, "node_modules")] });
  const deadline = Date.now() + 10_000;
  while (pool.stats().idle < 2 && Date.now() < deadline) await sleep(5);
});

afterAll(async () => {
  await pool?.close();
  delete process.env.SANDBOX_TEST_FAKE_SECRET;
});

describe("a run", () => {
  it("completes with the entry's output and its streamed deltas in order", async () => {
    const parts = Array.from({ length: 30 }, (_, i) => `part-${i};`);
    const events: RunEvent[] = [];
    const result = await run(spec("deltas", { parts }), events);
    expect(result.status).toBe("completed");
    expect(result.error).toBeUndefined();
    expect((result.output as { joined: string }).joined).toBe(parts.join(""));
    expect(events).toEqual(parts.map((delta) => ({ type: "output", delta })));
    expect(result.durationMs).toBeGreaterThan(0);
    expect(Math.abs(result.startedAt - Date.now())).toBeLessThan(10_000);
    expect(result.entryInvokedAt).toBeGreaterThanOrEqual(result.startedAt - 1);
  });

  it("passes the payload through as JSON and gives the entry its run id", async () => {
    const payload = { text: "héllo", n: 42, nested: { list: [1, null, true] } };
    const s = spec("echo", payload);
    const result = await run(s);
    expect(result.output).toEqual({ payload, pid: result.pid, runId: s.runId });
  });

  it("gets a fresh process every time: no pid serves two runs", async () => {
    const pids: number[] = [];
    for (let i = 0; i < 8; i++) {
      const result = await run(spec("echo"));
      const inside = (result.output as { pid: number }).pid;
      expect(inside).toBe(result.pid);
      pids.push(inside);
    }
    expect(new Set(pids).size).toBe(pids.length);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it("is served by a pre-started process, and the pool refills", async () => {
    let deadline = Date.now() + 20_000;
    while (pool.stats().idle < 2 && Date.now() < deadline) await sleep(5);
    const before = pool.stats();
    expect(before.idle).toBeGreaterThanOrEqual(2);
    const idlePids = pool.idlePids();
    const result = await run(spec("timing"));
    expect(result.status).toBe("completed");
    // an idle process took it (how fast that is, is the benchmark's business: bench/sandbox.ts)
    expect(idlePids).toContain(result.pid);
    expect(result.entryInvokedAt).toBeGreaterThanOrEqual(result.startedAt);
    expect(pool.stats().warmHits).toBeGreaterThan(before.warmHits);
    deadline = Date.now() + 20_000;
    while (pool.stats().idle < 2 && Date.now() < deadline) await sleep(5);
    expect(pool.stats().idle).toBeGreaterThanOrEqual(2);
    expect(pool.idlePids()).not.toContain(result.pid);
  });

  it("serves an entry outside the pre-started profile from a fresh spawn that may read its directory", async () => {
    const result = await run(spec("echo", { x: 1 }, { memoryMb: 96 }));
    expect(result.status).toBe("completed");
    expect((result.output as { payload: unknown }).payload).toEqual({ x: 1 });
  });
});

describe("failures", () => {
  it("kills the process at the timeout and reports timeout", async () => {
    const events: RunEvent[] = [];
    const began = Date.now();
    // Room for the process to start and report its pid on a loaded machine before the timeout.
    const result = await run(spec("sleep-forever", {}, { timeoutMs: 1_000 }), events);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("timeout");
    expect(Date.now() - began).toBeLessThan(3_000);
    expect(result.durationMs).toBeGreaterThanOrEqual(999);
    const pid = Number(events[0]?.delta);
    expect(pid).toBe(result.pid);
    pidsSeen.add(pid);
    expect(alive(pid)).toBe(false);
  });

  it("fails a result nested deeper than the service reads as invalid_output, and reads one exactly at the limit", async () => {
    const deep = await run(spec("deep", { depth: 500 }));
    expect(deep.status).toBe("failed");
    expect(deep.error).toEqual({ code: "invalid_output", message: "the agent's output nests deeper than 64 levels of arrays and objects; the service reads at most 64" });
    expect(alive(deep.pid!)).toBe(false);
    // the result line's envelope is one level: an output 63 deep is a line 64 deep
    const atLimit = await run(spec("deep", { depth: 63 }));
    expect(atLimit.status).toBe("completed");
    expect(JSON.stringify(atLimit.output)).toBe("[".repeat(63) + "]".repeat(63));
  });

  it("reports a throw as entry_error with the entry's message", async () => {
    const result = await run(spec("throw", { message: "the agent gave up" }));
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ code: "entry_error", message: "the agent gave up" });
  });

  it("reports heap exhaustion as out_of_memory", async () => {
    const events: RunEvent[] = [];
    const result = await run(spec("oom", {}, { memoryMb: 32, timeoutMs: 20_000 }), events);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("out_of_memory");
    expect(alive(Number(events[0]?.delta))).toBe(false);
  });

  // The data-segment cap needs util-linux's prlimit (every Linux host this runs on has it); without it the
  // pool falls back to the heap flag, which does not cap Buffers (docs/design/sandbox.md).
  it.runIf(existsSync("/usr/bin/prlimit") || existsSync("/bin/prlimit"))("caps memory outside the V8 heap too: Buffers stop at the sandbox's data limit", async () => {
    const result = await run(spec("buffers", {}, { memoryMb: 64, timeoutMs: 20_000 }));
    // Either the entry saw the allocation fail (and answered), or V8 itself could not grow and the run
    // ended out_of_memory; never 2 GiB of Buffers in a 64 MiB sandbox.
    if (result.status === "completed") {
      const output = result.output as { allocatedMb: number; stoppedBy: string };
      expect(output.stoppedBy).toBe("RangeError");
      expect(output.allocatedMb).toBeLessThan(64 + NODE_BASELINE_MB);
    } else {
      expect(result.error?.code).toBe("out_of_memory");
    }
  });

  it("reports process.exit(1) without a result as crashed", async () => {
    const events: RunEvent[] = [];
    const result = await run(spec("crash"), events);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("crashed");
    expect(alive(Number(events[0]?.delta))).toBe(false);
  });

  it("reports an entry that cannot be loaded as entry_error", async () => {
    const result = await run(spec("does-not-exist"));
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("entry_error");
  });
});

describe("escape attempts", () => {
  type Attempt = { ok: boolean; code?: string | null; value?: unknown };
  type Escape = {
    passwd: Attempt;
    repoFiles: Attempt[];
    listRoot: Attempt;
    procEnviron: Attempt;
    write: Attempt;
    spawn: Attempt;
    spawnSync: Attempt;
    worker: Attempt;
    addon: Attempt;
    env: Record<string, string>;
    envKeys: string[];
    cwd: string;
    argv: string[];
    execArgv: string[];
  };
  let escape: Escape;
  let writeDir: string;
  const repoFiles = [join(root, "package.json"), join(root, "src/config.ts"), join(here, "pool.test.ts"), join(root, "../shared/ARCHITECTURE.md")];

  beforeAll(async () => {
    writeDir = mkdtempSync(join(tmpdir(), "sandbox-write-"));
    const result = await run(spec("escape", { repoFiles, writePath: join(writeDir, "escaped.txt"), addonPath }));
    expect(result.status).toBe("completed");
    escape = result.output as Escape;
  });

  afterAll(() => rmSync(writeDir, { recursive: true, force: true }));

  it("cannot read files outside the allowed directories", () => {
    expect(escape.passwd).toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
    expect(escape.procEnviron).toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
    expect(escape.listRoot).toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
    for (const attempt of escape.repoFiles) expect(attempt).toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
  });

  it("cannot write files", () => {
    expect(escape.write).toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
    expect(existsSync(join(writeDir, "escaped.txt"))).toBe(false);
  });

  it("cannot start processes, workers or native addons", () => {
    expect(escape.spawn).toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
    expect(escape.spawnSync.ok === false || escape.spawnSync.value !== "ran").toBe(true);
    expect(escape.worker).toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
    expect(existsSync(addonPath)).toBe(true);
    expect(escape.addon.ok).toBe(false);
    expect(escape.addon.code).toMatch(/ERR_DLOPEN_DISABLED|ERR_ACCESS_DENIED/);
  });

  it("sees an empty environment and nothing of the parent's secrets", () => {
    expect(process.env.SANDBOX_TEST_FAKE_SECRET).toBe("sk-parent-secret-do-not-leak");
    expect(escape.envKeys).toEqual([]);
    expect(escape.env.HOME).toBeUndefined();
    expect(escape.env.PATH).toBeUndefined();
    const seen = JSON.stringify(escape);
    expect(seen).not.toContain("sk-parent-secret-do-not-leak");
    expect(seen).not.toContain("SANDBOX_TEST_FAKE_SECRET");
    expect(escape.cwd).toBe("/");
  });

  it("does not see state a previous run left behind", async () => {
    const first = await run(spec("global-set", { secret: "run-one-private" }));
    expect(first.status).toBe("completed");
    const second = await run(spec("global-read"));
    expect(second.status).toBe("completed");
    expect(second.output).toEqual({ pid: second.pid, global: null, module: null, proto: null });
    expect(second.pid).not.toBe(first.pid);
  });

  it("keeps a payload secret out of the command line of the sandbox", async () => {
    const result = await run(spec("escape", { repoFiles: [], writePath: join(writeDir, "x"), addonPath, key: "sk-payload-secret" }));
    const seen = result.output as Escape;
    expect(JSON.stringify([seen.argv, seen.execArgv, seen.env])).not.toContain("sk-payload-secret");
  });
});

describe("under load", () => {
  it("completes 50 concurrent runs, each in its own process", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => run(spec("echo", { i }, { timeoutMs: 20_000 }))));
    for (const [i, result] of results.entries()) {
      expect(result.status).toBe("completed");
      expect((result.output as { payload: unknown }).payload).toEqual({ i });
    }
    const pids = results.map((result) => (result.output as { pid: number }).pid);
    expect(new Set(pids).size).toBe(50);
  });
});

describe("close", () => {
  it("leaves no child process behind", async () => {
    const extra = createLocalSandboxPool({ warm: 3, allowFsRead: [fixtures] });
    await sleep(50);
    const running = extra.run({ runId: "closing", entry: fixture("sleep-forever"), payload: {}, timeoutMs: 30_000, memoryMb: 128 });
    const deadline = Date.now() + 10_000;
    while (extra.stats().idle < 3 && Date.now() < deadline) await sleep(5);
    const extraPids = extra.idlePids();
    await extra.close();
    const result = await running;
    expect(result.status).toBe("failed");
    if (result.pid) extraPids.push(result.pid);
    for (const pid of extraPids) expect(alive(pid)).toBe(false);
    await expect(extra.run(spec("echo"))).rejects.toThrow(/closed/);

    for (const pid of pool.idlePids()) pidsSeen.add(pid);
    await pool.close();
    expect(pidsSeen.size).toBeGreaterThan(50);
    for (const pid of pidsSeen) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(pool.stats()).toMatchObject({ idle: 0, busy: 0 });
  });
});
