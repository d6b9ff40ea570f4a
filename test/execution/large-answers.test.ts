// A connected agent's oversized answer is refused as soon as it passes the limit the service reads (1 Mi
// characters of JSON, or the run's 128 Ki characters of streamed output), without downloading the rest:
// 20 answers of 10 MiB at once leave the API process's memory flat. The API runs in a process of its
// own (test/execution/fixtures/api-process.ts), which reports its process.memoryUsage(); the agent is a
// real HTTPS server in this process that writes its answer in 64 KiB pieces as fast as the service
// reads them, until the service hangs up. Each kind of oversized answer: a JSON document without a
// length, one whose Content-Length says it is too large, an event stream with one giant `result` event,
// and one that streams output past the run's limit.
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConnectedAgent, type AgentCall, type ConnectedAgentServer } from "../support/connected-agent.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { until } from "../support/until.ts";
import type { ChildMessage, MemoryFigures } from "./fixtures/api-process.ts";

const MiB = 1024 * 1024;
/** How much each oversized answer would be, were it read whole. */
const ANSWER_BYTES = 10 * MiB;
/** The answer that says how long it is, under the egress guard's own 10 MiB cap. */
const DECLARED_BYTES = 9 * MiB;
const PIECE = Buffer.alloc(64 * 1024, "a");
const CONCURRENT = 20;
/** What 20 oversized answers at once may add to the API process. Reading each answer whole added
 * 140-180 MiB of RSS and 250-375 MiB held by JavaScript; refusing each at its bound, under 20 and 45. */
const MAX_GROWTH_BYTES = 100 * MiB;

let agent: ConnectedAgentServer;
let child: ChildProcess;
let api: { url: string; keys: string[]; agentId: string };
const messages: ChildMessage[] = [];

/** Writes `head`, then `ANSWER_BYTES` of "a" in pieces as the reader takes them, then `tail`: stops when
 * the reader hangs up. */
async function writeLarge(res: ServerResponse, head: string, tail: string, piece: (bytes: Buffer) => string | Buffer = (b) => b, total = ANSWER_BYTES): Promise<void> {
  let sent = 0;
  const closed = once(res, "close");
  res.write(head);
  while (sent < total && !res.destroyed) {
    const chunk = piece(PIECE);
    sent += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    if (!res.write(chunk)) await Promise.race([once(res, "drain"), closed]);
  }
  if (!res.destroyed) res.end(tail);
}

/** The agent: the task names the kind of answer. */
async function answer(call: AgentCall): Promise<void> {
  const { res } = call;
  switch (call.task) {
    case "json":
      res.writeHead(200, { "content-type": "application/json" });
      return writeLarge(res, '{"output":{"text":"', '"}}');
    case "json-declared":
      // Under the egress guard's own 10 MiB cap, over the 3 bytes per character that 1 Mi characters can take.
      res.writeHead(200, { "content-type": "application/json", "content-length": String(DECLARED_BYTES + 22) });
      return writeLarge(res, '{"output":{"text":"', '"}}', undefined, DECLARED_BYTES);
    case "result-event":
      res.writeHead(200, { "content-type": "text/event-stream" });
      return writeLarge(res, 'event: result\ndata: {"output":{"text":"', '"}}\n\n');
    case "deltas":
      res.writeHead(200, { "content-type": "text/event-stream" });
      return writeLarge(res, "", 'event: result\ndata: {"output":{}}\n\n', (bytes) => `event: output\ndata: ${JSON.stringify({ delta: bytes.toString("latin1") })}\n\n`);
    default:
      return call.output({ findings: [call.task] });
  }
}

function fromChild<T extends ChildMessage["type"]>(type: T, timeoutMs = 120_000): Promise<Extract<ChildMessage, { type: T }>> {
  const found = () => messages.find((m): m is Extract<ChildMessage, { type: T }> => m.type === type);
  return until(`the API process's "${type}"`, () => found() !== undefined, timeoutMs).then(() => {
    const message = found()!;
    messages.splice(messages.indexOf(message), 1);
    return message;
  });
}

beforeAll(async () => {
  agent = await startConnectedAgent({ handler: answer, unsigned: "answer" });
  const infrastructure = sharedInfrastructure();
  child = fork(join(import.meta.dirname, "fixtures/api-process.ts"), [], {
    execArgv: ["--import", "tsx", "--expose-gc", "--disable-warning=ExperimentalWarning"],
    env: {
      ...process.env,
      TEST_RPC_URL: infrastructure.rpcUrl,
      TEST_DYNAMO_ENDPOINT: infrastructure.dynamoEndpoint,
      TEST_AWS_ENDPOINT: infrastructure.awsEndpoint,
      TEST_AGENT_CA: agent.ca,
      TEST_AGENT_ENTRYPOINT: agent.entrypoint("large-answers"),
      // One renter for the single runs and one per burst: the execution rule admits 60 runs a minute per renter.
      TEST_RENTERS: "4",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  child.on("message", (message: ChildMessage) => void messages.push(message));
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the API process exited (${String(code)}) before it was ready`);
  });
  const ready = await Promise.race([fromChild("ready"), exited]);
  api = { url: ready.url, keys: ready.keys, agentId: ready.agentId };
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = once(child, "exit");
    child.disconnect();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000).unref())]);
    if (child.exitCode === null) child.kill("SIGKILL");
  }
  await agent?.stop();
});

type RunBody = { run_id: string; status: string; output: unknown; error?: { code: string; message: string } };

async function execute(task: string, path = "/v1/execute", key = api.keys[0]!): Promise<RunBody> {
  const res = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ agent_id: api.agentId, task }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  if (path === "/v1/execute") return JSON.parse(text) as RunBody;
  const done = text.split("\n\n").find((event) => event.startsWith("event: done"));
  return JSON.parse(done!.split("\n").find((line) => line.startsWith("data: "))!.slice(6)) as RunBody;
}

async function memory(type: "baseline" | "peak"): Promise<MemoryFigures> {
  child.send({ type });
  return (await fromChild(type)).figures;
}

describe("a connected agent's oversized answer", () => {
  it("a small answer still completes (the agent and the process work)", async () => {
    expect(await execute("hello")).toMatchObject({ status: "completed", output: { findings: ["hello"] } });
  });

  it.each([
    ["a JSON document with no length", "json", /larger than the 1048576 characters of JSON/],
    ["a JSON document whose Content-Length is too large", "json-declared", /larger than the 1048576 characters of JSON/],
    ["an event stream with one giant result event", "result-event", /event of the agent's stream is larger than the 1048576 characters/],
    ["an event stream whose output passes the run's limit", "deltas", /output exceeds 131072 characters/],
  ])("%s fails the run output_too_large", async (_name, task, message) => {
    for (const path of ["/v1/execute", "/v1/execute/stream"]) {
      const run = await execute(task, path);
      expect(run.status, JSON.stringify(run)).toBe("failed");
      expect(run.error?.code).toBe("output_too_large");
      expect(run.error?.message).toMatch(message);
    }
  });

  it.each([
    ["JSON documents with no length", "json", 1],
    ["JSON documents whose Content-Length is too large", "json-declared", 2],
    ["event streams with one giant result event", "result-event", 3],
  ])(`${CONCURRENT} oversized %s at once leave the API process's memory flat`, async (_name, task, renter) => {
    const baseline = await memory("baseline");
    const runs = await Promise.all(Array.from({ length: CONCURRENT }, () => execute(task, "/v1/execute", api.keys[renter])));
    const peak = await memory("peak");
    for (const run of runs) expect(run.error?.code, JSON.stringify(run)).toBe("output_too_large");
    const growth = { rss: peak.rss - baseline.rss, held: peak.held - baseline.held };
    // Printed for the record: what the process took on top of its baseline.
    console.log(`${CONCURRENT} × ${task}: RSS +${(growth.rss / MiB).toFixed(1)} MiB, held +${(growth.held / MiB).toFixed(1)} MiB`);
    expect(growth.rss).toBeLessThan(MAX_GROWTH_BYTES);
    expect(growth.held).toBeLessThan(MAX_GROWTH_BYTES);
  });
});
