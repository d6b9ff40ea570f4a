// What the person at the terminal sees while the CLI waits, and what Ctrl-C during a run tells them,
// end to end: the `agentrent` command line (its entry run in-process, its stdout and stderr pipes or
// terminals) against the real service (the API over HTTP on a free 127.0.0.1 port, the real chain and
// contract, the emulators, the chain indexer), with a connected agent on a real HTTPS server that holds
// a run where the test says. Covered: `search` and `show` in human form (the agent id, the input the
// agent takes); a transaction's hash at once, then its confirmation; a spinner for a --no-stream run;
// "waiting for the first token" for a streamed one (with and without a terminal); Ctrl-C during a
// streamed run and a --no-stream run (exit 130, the run id or the idempotency key and how to resume or
// read the run, which goes on and is charged once) and before a run started.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { createWorldCliHarness, rendered } from "../support/cli.ts";
import { until } from "../support/until.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import { EXIT } from "../../cli/src/errors.ts";

/** With the indexer running. */
let world: World;
let renter: Account;
let agent: PublishedAgent;
let renterEnv: Record<string, string>;
/** The tasks the connected agent received. */
const deliveries = () => world.agent.deliveries.map((d) => d.task);

/**
 * The connected agent. A task held by the test waits at its gate: a "stream …" task streams three
 * deltas and waits before the first one when its task says "before", else after it; any other task
 * answers its findings once released.
 */
async function connected(call: AgentCall): Promise<void> {
  if (call.task.startsWith("stream")) {
    const before = call.task.includes("before");
    call.startEvents();
    if (before) await call.gate();
    return call.stream(["alpha ", "beta ", "gamma"], { findings: ["alpha", "beta", "gamma"] }, (i) => (i === 0 && !before ? call.gate() : undefined));
  }
  await call.gate();
  call.output({ findings: [`${call.task}: ${(call.input as { topic?: string } | null)?.topic ?? "-"}`] });
}

const MANIFEST = {
  name: "cli-runs-researcher",
  category: "research",
  description: "Researches a topic and lists findings (a connected agent for the CLI's progress and interrupt tests).",
  model: { provider: "provider_a", model: "m" },
  input_schema: {
    type: "object",
    properties: { topic: { type: "string", description: "what to research" }, depth: { type: "string", enum: ["brief", "full"] } },
    required: ["topic"],
    additionalProperties: false,
  },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 60,
};

const { actorEnv, start, cli, cliJson, close } = createWorldCliHarness("agentrent-e2e-runs-", () => world);

/** The renter's per-query balance on-chain. */
async function balance(): Promise<bigint> {
  const [, , , , left] = await world.market.client.readContract({ address: world.market.marketplace, abi: marketplaceAbi, functionName: "credentialOf", args: [agent.onChainId, renter.address] });
  return left;
}

/** A command line's words as a POSIX shell splits them (single and double quotes). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'\\'')*)'|(\S+))/gy;
  for (let match = pattern.exec(line); match && match[0].trim() !== ""; match = pattern.exec(line)) words.push(match[1] ?? match[2]?.replaceAll("'\\''", "'") ?? match[3]!);
  return words;
}

const SPINNER = "[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]";
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: { handler: connected }, jobs: { only: ["indexer"], everyMs: { indexer: 100 } } });
  agent = await world.publishConnected("researcher", { manifest: MANIFEST, rental: "per_query" });
  renter = await world.account();
  renterEnv = actorEnv(renter, "renter");
  const login = await cli(renterEnv, ["login"]);
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`);
}, 120_000);

afterAll(close, 60_000);

describe("search and show in human form", () => {
  it("search prints each listing's agent id beside its listing id, and the input the agent takes", async () => {
    const found = await cli(renterEnv, ["search", "researcher findings", "--category", "research"]);
    expect(found.code, found.stderr).toBe(0);
    const lines = found.stdout.split("\n");
    const at = lines.indexOf(`${agent.agent_id}  ${agent.listing_id}`);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines[at + 1]).toBe('  input: topic: string (required)  what to research; depth: "brief"|"full"');
    expect(lines[at + 2]).toMatch(/^ {2}\S.* \(research\) · per_query 0\.001 ETH · rating \d\.\d \(\d+\) · \d+ runs · by /);
  });

  it("show prints the agent id first, then the input the agent takes, a property a line", async () => {
    const shown = await cli(renterEnv, ["show", agent.agent_id]);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^agent id +${escape(agent.agent_id)}$`));
    expect(lines[1]).toMatch(new RegExp(`^id +${escape(agent.listing_id)}$`));
    expect(lines[2]).toMatch(/^input +topic: string \(required\) {2}what to research$/);
    expect(lines[3]).toMatch(/^ +depth: "brief"\|"full"$/);
    expect(shown.stdout).toMatch(/^rental model +per_query$/m);
  });
});

describe("progress on every wait, without a terminal (plain lines on stderr)", () => {
  it("a transaction: its hash as soon as it is sent, then its confirmation", async () => {
    const rented = await cli(renterEnv, ["rent", agent.listing_id, "--runs", "10", "--yes"]);
    expect(rented.code, rented.stderr).toBe(0);
    const lines = rented.stderr.trimEnd().split("\n");
    const hash = /^transaction (0x[0-9a-f]{64}) sent$/m.exec(rented.stderr)?.[1];
    expect(hash).toBeDefined();
    expect(lines).toEqual(["simulating purchasePerQuery...", `transaction ${hash} sent`, `waiting for the confirmation of ${hash}...`, expect.stringMatching(new RegExp(`^transaction ${hash} confirmed in block \\d+$`))]);
    expect(rented.stdout).toContain(`transaction  ${hash}`);
  });

  it("a --no-stream run: its label while it runs, then its result", async () => {
    const gate = world.agent.gates.hold("plain progress");
    const running = start(renterEnv, ["execute", agent.agent_id, "--task", "plain progress", "--input", '{"topic":"tides"}', "--no-stream"]);
    await until("the run to reach the agent", () => gate.arrived === 1);
    expect(running.stderr()).toBe(`running ${agent.agent_id}...\n`);
    expect(running.stdout()).toBe("");
    gate.open();
    const done = await running.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("plain progress: tides");
    expect(done.stderr).toMatch(new RegExp(`^running ${escape(agent.agent_id)}\\.\\.\\.\\nrun run_[0-9a-f]+: completed, cost 0\\.001 ETH, \\d+ ms\\n$`));
  });

  it("a streamed run: its id and 'waiting for the first token' before the first token arrives", async () => {
    const gate = world.agent.gates.hold("stream, held before the first token");
    const running = start(renterEnv, ["execute", agent.agent_id, "--task", "stream, held before the first token", "--input", '{"topic":"wind"}']);
    await until("the waiting line", () => /waiting for the first token/.test(running.stderr()));
    await until("the run to reach the agent", () => gate.arrived === 1);
    expect(running.stderr()).toMatch(/^starting the run\.\.\.\nrun (run_[0-9a-f]+): waiting for the first token\.\.\.\n$/);
    expect(running.stdout()).toBe("");
    gate.open();
    const done = await running.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe("alpha beta gamma\n");
    const runId = /run (run_[0-9a-f]+): waiting/.exec(done.stderr)![1]!;
    expect(done.stderr).toContain(`run ${runId}: completed, cost 0.001 ETH`);
  });
});

describe("progress on every wait, on a terminal (a spinner on stderr)", () => {
  it("a transaction: the spinner while it is simulated and confirmed, its hash and its confirmation each on a line of their own", async () => {
    const topped = await cli(renterEnv, ["topup", agent.listing_id, "--runs", "1", "--yes"], { tty: true });
    expect(topped.code, topped.stderr).toBe(0);
    const hash = /transaction (0x[0-9a-f]{64}) sent/.exec(topped.stderr)![1]!;
    expect(topped.stderr).toMatch(new RegExp(`${SPINNER} simulating topUpBalance \\(\\d+s\\)`));
    expect(topped.stderr).toMatch(new RegExp(`${SPINNER} waiting for the confirmation of ${hash} \\(\\d+s\\)`));
    const screen = rendered(topped.stderr).filter((line) => line !== "");
    expect(screen).toEqual([`transaction ${hash} sent`, expect.stringMatching(new RegExp(`^transaction ${hash} confirmed in block \\d+$`))]);
  });

  it("a --no-stream run: a spinner with the seconds waited, gone once the result is printed", async () => {
    const gate = world.agent.gates.hold("spinner progress");
    const running = start(renterEnv, ["execute", agent.agent_id, "--task", "spinner progress", "--input", '{"topic":"tides"}', "--no-stream"], { tty: true });
    await until("the run to reach the agent", () => gate.arrived === 1);
    await until("the spinner", () => new RegExp(`${SPINNER} running ${escape(agent.agent_id)} \\(\\d+s\\)`).test(running.stderr()));
    gate.open();
    const done = await running.done;
    expect(done.code, done.stderr).toBe(0);
    expect(rendered(done.stderr).filter((line) => line !== "")).toEqual([expect.stringMatching(/^run run_[0-9a-f]+: completed, cost 0\.001 ETH, \d+ ms$/)]);
  });

  it("a streamed run: the spinner says it waits for the first token, with the run id, and clears when output starts", async () => {
    const gate = world.agent.gates.hold("stream, spinner before the first token");
    const running = start(renterEnv, ["execute", agent.agent_id, "--task", "stream, spinner before the first token", "--input", '{"topic":"wind"}'], { tty: true });
    await until("the waiting spinner", () => new RegExp(`${SPINNER} run run_[0-9a-f]+: waiting for the first token \\(\\d+s\\)`).test(running.stderr()));
    expect(running.stdout()).toBe("");
    gate.open();
    const done = await running.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe("alpha beta gamma\n");
    expect(rendered(done.stderr).filter((line) => line !== "")).toEqual([expect.stringMatching(/^run run_[0-9a-f]+: completed, cost 0\.001 ETH/)]);
  });
});

describe("Ctrl-C during a run", () => {
  it("a streamed run: exit 130 with its id and how to follow and read it; it goes on, is charged once, and runs events follows it to its result", async () => {
    const before = await balance();
    const gate = world.agent.gates.hold("stream, interrupted");
    const running = start(renterEnv, ["execute", agent.agent_id, "--task", "stream, interrupted", "--input", '{"topic":"tides"}']);
    await until("the first token on stdout", () => running.stdout().includes("alpha"));
    running.interrupt();
    const stopped = await running.done;
    expect(stopped.code).toBe(EXIT.interrupted);
    const runId = /Interrupted; run (run_[0-9a-f]+) goes on in the service\./.exec(stopped.stderr)?.[1];
    expect(runId, stopped.stderr).toBeDefined();
    expect(stopped.stderr).toContain(`Follow it: agentrent runs events ${runId}; read it: agentrent runs get ${runId}`);
    expect(stopped.stdout).toBe("alpha \n");

    const following = start(renterEnv, ["runs", "events", runId!]);
    gate.open();
    const followed = await following.done;
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toBe("alpha beta gamma\n");
    expect(followed.stderr).toContain(`run ${runId}: completed, cost 0.001 ETH`);
    expect(await cliJson(renterEnv, ["runs", "get", runId!])).toMatchObject({ run_id: runId, status: "completed", output: { findings: ["alpha", "beta", "gamma"] } });
    expect(deliveries().filter((task) => task === "stream, interrupted")).toHaveLength(1);
    expect(await balance()).toBe(before - agent.priceWei);
  });

  it("a --no-stream run: exit 130 with its idempotency key and the command that returns that same run without running or charging it again", async () => {
    const before = await balance();
    const gate = world.agent.gates.hold("interrupted, not streamed");
    const running = start(renterEnv, ["execute", agent.agent_id, "--task", "interrupted, not streamed", "--input", '{"topic":"it\'s late"}', "--timeout", "45", "--no-stream", "--json"]);
    await until("the run to reach the agent", () => gate.arrived === 1);
    running.interrupt();
    const stopped = await running.done;
    expect(stopped.code).toBe(EXIT.interrupted);
    const { error } = JSON.parse(stopped.stdout) as { error: { code: string; exit_code: number; details: { idempotency_key: string; resume_command: string } } };
    expect(error).toMatchObject({ code: "interrupted", exit_code: EXIT.interrupted });
    const { idempotency_key: key, resume_command: again } = error.details;
    expect(stopped.stderr).toContain(`Its idempotency key is ${key}.`);
    expect(stopped.stderr).toContain(`\n  ${again}`);
    expect(again).toBe(`agentrent execute ${agent.agent_id} --task 'interrupted, not streamed' --input '{"topic":"it'\\''s late"}' --timeout 45 --no-stream --idempotency-key ${key}`);

    // The command as printed, read back as a shell would: the same run, waited for while it is held.
    const words = shellWords(again);
    expect(words[0]).toBe("agentrent");
    const resumed = start(renterEnv, [...words.slice(1), "--json"]);
    gate.open();
    const result = await resumed.done;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed", run_id: expect.stringMatching(/^run_[0-9a-f]+$/), output: { findings: ["interrupted, not streamed: it's late"] } });
    expect(deliveries().filter((task) => task === "interrupted, not streamed")).toHaveLength(1);
    expect(await balance()).toBe(before - agent.priceWei);
  });

  it("before the run started: exit 130, nothing ran, and how to run it without a second charge", async () => {
    const before = await balance();
    const running = start(renterEnv, ["execute", agent.agent_id, "--task", "never started", "--idempotency-key", "cli-never-started"]);
    running.interrupt();
    const stopped = await running.done;
    expect(stopped.code).toBe(EXIT.interrupted);
    expect(stopped.stderr).toContain("Interrupted before the run started. Run it again with --idempotency-key cli-never-started");
    expect(deliveries()).not.toContain("never started");
    expect(await balance()).toBe(before);
  });
});
