// The stdio MCP server as its users run it: the package's `agent-rental-mcp` binary spawned as a child
// process by @modelcontextprotocol/sdk's Client + StdioClientTransport, configured by environment
// variables, against the real service (the API on a free port of 127.0.0.1, the real chain and
// contract, dynalite, connected agents on a real HTTPS server). Lists the tools (one per rented agent
// plus the generic one), calls them, and checks the error results and that the API key never shows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import { AgentRentalClient } from "@agent-rental/sdk";
import { loadAgentMcpServer } from "../../sdk/src/mcp/server.ts";

// The program's source through tsx (the packed bin runs its build: test/packages checks that one).
const BIN = ["--import", "tsx", fileURLToPath(new URL("../../sdk/src/mcp/bin.ts", import.meta.url))];
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let world: World;
let baseUrl: string;
let renter: Account;
let apiKey: string;
let researcher: PublishedAgent;
let writer: PublishedAgent;
let unrented: PublishedAgent;
/** What the connected agent received: each delivery's task and input. */
const deliveries = () => world.agent.deliveries.map(({ task, input }) => ({ task, input }));
const held = new Map<string, () => void>();

/** The connected agent: findings from its task and input; "fail…" answers HTTP 500; "hold…" waits to be released. */
async function agent(call: AgentCall): Promise<void> {
  if (call.task.startsWith("fail")) return call.fail(500);
  if (call.task.startsWith("hold")) await new Promise<void>((resolve) => held.set(call.task, resolve));
  const input = call.input;
  const findings = [`${call.path}: ${call.task}`, ...(input && typeof input === "object" && "topic" in input ? [`topic: ${String(input.topic)}`] : [])];
  call.output({ findings });
}

const MANIFEST = {
  category: "research",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 10,
};

const publishConnected = (name: string, description: string) => world.publishConnected(name, { manifest: { ...MANIFEST, description }, rental: "one_time" });

interface Running {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the server wrote to stderr so far. */
  stderr: () => string;
  /** Errors of the transport (a non-JSON line on stdout would be one). */
  errors: Error[];
}

const running: Running[] = [];

/** Spawns the binary with the given environment and connects (the initialize handshake is the readiness signal). */
async function startMcp(env: Record<string, string>): Promise<Running> {
  const transport = new StdioClientTransport({ command: process.execPath, args: BIN, cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  const entry = { client, transport, stderr: () => stderr, errors };
  running.push(entry);
  return entry;
}

/** Closes the client and waits until the server process has exited. */
async function stopMcp(entry: Running): Promise<void> {
  await entry.client.close();
  running.splice(running.indexOf(entry), 1);
}

const textOf = (result: unknown) => ((result as CallToolResult).content as { type: string; text: string }[]).map((c) => c.text).join("\n");

let mcp: Running;

beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: { handler: agent } });
  baseUrl = world.url;
  researcher = await publishConnected("mcp-researcher", "Finds facts about a topic");
  writer = await publishConnected("mcp-writer", "Writes short reports");
  unrented = await publishConnected("mcp-unrented", "Not rented by the renter");
  renter = await world.account();
  for (const agent of [researcher, writer]) await world.rent(renter, agent);
  const client = new AgentRentalClient({ baseUrl });
  await client.signIn(renter);
  apiKey = (await client.keys.create("mcp server", renter)).key;
  mcp = await startMcp({ AGENT_RENTAL_API_URL: baseUrl, AGENT_RENTAL_API_KEY: apiKey });
}, 120_000);

afterAll(async () => {
  for (const release of held.values()) release();
  for (const entry of [...running]) await stopMcp(entry).catch(() => undefined);
  await world?.close();
});

describe("tools", () => {
  it("lists one tool per rented agent, named after it and described by its listing, plus the generic tool", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["run_agent", "mcp_researcher", "mcp_writer"]);
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const generic = tools[0]!;
    expect(generic.inputSchema).toMatchObject({ type: "object", required: ["agent_id", "task"], properties: { agent_id: { type: "string" }, task: { type: "string" }, input: { type: "object" } } });
    const perAgent = tools[1]!;
    expect(perAgent.title).toBe("Mcp Researcher");
    expect(perAgent.description).toContain("Mcp Researcher: Finds facts about a topic");
    expect(perAgent.description).toContain(researcher.listing_id);
    // The agent's own input schema, with task beside its properties.
    expect(perAgent.inputSchema).toEqual({ type: "object", required: ["task"], properties: { task: expect.objectContaining({ type: "string" }), topic: { type: "string" } }, additionalProperties: false });
    expect(perAgent.outputSchema).toEqual(MANIFEST.output_schema);
    expect(mcp.stderr()).toContain("offering 2 rented agent tools: mcp_researcher, mcp_writer");
  });

  it("a per-agent tool runs that agent: the output as JSON text and as structured content, the run in _meta", async () => {
    const result = (await mcp.client.callTool({ name: "mcp_writer", arguments: { task: "write it", topic: "tides" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const output = { findings: ["/agents/mcp-writer: write it", "topic: tides"] };
    expect(JSON.parse(textOf(result))).toEqual(output);
    expect(result.structuredContent).toEqual(output);
    expect(result._meta).toMatchObject({ run: { run_id: expect.stringMatching(/\S/), agent_id: expect.any(String), cost_wei: "0", duration_ms: expect.any(Number) } });
  });

  it("the generic tool runs the agent named by agent_id", async () => {
    const result = (await mcp.client.callTool({ name: "run_agent", arguments: { agent_id: researcher.agent_id, task: "generic" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ findings: ["/agents/mcp-researcher: generic"] });
  });
});

describe("errors are tool errors, and the server keeps serving", () => {
  it("an agent not rented: an access error with its code and request id", async () => {
    const result = (await mcp.client.callTool({ name: "run_agent", arguments: { agent_id: unrented.agent_id, task: "not mine" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Error credential_not_found \(HTTP 403, request id req_\w+, contract error CredentialNotFound\): /);
    expect(deliveries().some((d) => d.task === "not mine")).toBe(false);
  });

  it("a failed run: its failure reason and run id", async () => {
    const result = (await mcp.client.callTool({ name: "mcp_researcher", arguments: { task: "fail now" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Error agent_http_error \(run id \S+\): .*HTTP 500/);
  });

  it("bad arguments never reach the service: missing or empty task, agent_id on a per-agent tool, input not an object (tool errors), an unknown tool (the protocol's -32602)", async () => {
    const before = deliveries().length;
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["run_agent", { task: "no agent" }, /agent_id/],
      ["run_agent", { agent_id: researcher.agent_id }, /task/],
      ["mcp_researcher", { task: "" }, /task must not be empty/],
      ["mcp_researcher", { task: "x", agent_id: unrented.agent_id }, /agent_id/],
      ["run_agent", { agent_id: researcher.agent_id, task: "x", input: "a string" }, /input/],
      ["run_agent", { agent_id: researcher.agent_id, task: "x", input: [1] }, /input/],
    ];
    for (const [name, args, message] of cases) {
      const result = (await mcp.client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
    await expect(mcp.client.callTool({ name: "no_such_tool", arguments: { task: "x" } })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: no_such_tool/) });
    expect(deliveries().length).toBe(before);
    expect((await mcp.client.listTools()).tools).toHaveLength(3);
  });

  it("a cancelled call stops waiting; the server goes on", async () => {
    const controller = new AbortController();
    const call = mcp.client.callTool({ name: "mcp_researcher", arguments: { task: "hold on" } }, undefined, { signal: controller.signal });
    await expect.poll(() => held.has("hold on"), { timeout: 10_000 }).toBe(true);
    controller.abort();
    await expect(call).rejects.toThrow();
    held.get("hold on")!();
    const result = (await mcp.client.callTool({ name: "mcp_researcher", arguments: { task: "after cancel" } })) as CallToolResult;
    expect(JSON.parse(textOf(result))).toEqual({ findings: ["/agents/mcp-researcher: after cancel"] });
  });

  it("stdout carried only protocol messages and the API key never appeared in tool output or logs", async () => {
    expect(mcp.errors).toEqual([]);
    expect(mcp.stderr()).toContain("ready");
    expect(mcp.stderr()).not.toContain(apiKey);
    expect(mcp.stderr()).not.toContain(apiKey.slice(9));
  });
});

describe("long runs", () => {
  it("sends progress notifications while a run goes on, when the client asks for progress (in-process server)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const logs: string[] = [];
    const { server } = await loadAgentMcpServer(new AgentRentalClient({ baseUrl, apiKey }), { secrets: [apiKey], log: (m) => logs.push(m), progressIntervalMs: 20 });
    await server.connect(serverSide);
    const client = new Client({ name: "in-process", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const progress: { progress: number; message?: string }[] = [];
      const result = await client.callTool({ name: "mcp_researcher", arguments: { task: "hold for progress" } }, undefined, {
        resetTimeoutOnProgress: true,
        onprogress: (p) => {
          progress.push(p);
          // Released once the agent holds the task and two notifications have arrived (they keep coming
          // until then), so the run outlives at least two of them.
          if (progress.length >= 2) held.get("hold for progress")?.();
        },
      });
      expect(JSON.parse(textOf(result))).toEqual({ findings: ["/agents/mcp-researcher: hold for progress"] });
      expect(progress.slice(0, 2)).toEqual([
        { progress: 1, message: "mcp_researcher: the agent is working" },
        { progress: 2, message: "mcp_researcher: the agent is working" },
      ]);
      expect(logs.join("\n")).toMatch(/mcp_researcher: run \S+ completed/);
      expect(logs.join("\n")).not.toContain(apiKey);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("rentals that change while the server runs", () => {
  it("refresh() gives a newly rented agent its tool and takes the tool of a revoked rental away, telling the client", async () => {
    const later = await publishConnected("mcp-later", "Rented after the server started");
    const revoked = await publishConnected("mcp-revoked", "Rented, then revoked by its creator");
    await world.rent(renter, revoked);

    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const logs: string[] = [];
    const { server, refresh } = await loadAgentMcpServer(new AgentRentalClient({ baseUrl, apiKey }), { secrets: [apiKey], log: (m) => logs.push(m) });
    await server.connect(serverSide);
    const client = new Client({ name: "in-process", version: "1.0.0" });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await client.connect(clientSide);
    try {
      const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
      expect(await names()).toEqual(["mcp_researcher", "mcp_revoked", "mcp_writer", "run_agent"]);
      expect(await refresh()).toEqual({ added: [], removed: [] });

      await world.market.purchaseOneTime(renter, later.onChainId, later.priceWei);
      await world.market.revoke((await world.creator()).account, revoked.onChainId, renter.address);
      await world.index();
      expect(await refresh()).toEqual({ added: ["mcp_later"], removed: ["mcp_revoked"] });
      expect(await names()).toEqual(["mcp_later", "mcp_researcher", "mcp_writer", "run_agent"]);
      // The notifications travel asynchronously over the transport; the listing above came after them.
      expect(changed).toBeGreaterThanOrEqual(1);

      const result = (await client.callTool({ name: "mcp_later", arguments: { task: "after the refresh" } })) as CallToolResult;
      expect(JSON.parse(textOf(result))).toEqual({ findings: ["/agents/mcp-later: after the refresh"] });
      // A tool that is gone is unknown: the protocol's error (MCP 2025-11-25).
      await expect(client.callTool({ name: "mcp_revoked", arguments: { task: "anything" } })).rejects.toMatchObject({ code: -32602 });
      expect(logs.join("\n")).toContain("tools changed: +mcp_later, -mcp_revoked");
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("configuration", () => {
  it("an invalid key: the server starts with the generic tool, whose calls report invalid_api_key without the key", async () => {
    const badKey = "svc_test_0000000000000000000000000000000000000000";
    const bad = await startMcp({ AGENT_RENTAL_API_URL: baseUrl, AGENT_RENTAL_API_KEY: badKey });
    try {
      expect((await bad.client.listTools()).tools.map((t) => t.name)).toEqual(["run_agent"]);
      const result = (await bad.client.callTool({ name: "run_agent", arguments: { agent_id: researcher.agent_id, task: "with a bad key" } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Error invalid_api_key \(HTTP 401, request id req_\w+\)/);
      expect(textOf(result)).not.toContain(badKey);
      expect(bad.stderr()).toContain("could not list the rented agents");
      expect(bad.stderr()).not.toContain(badKey);
    } finally {
      await stopMcp(bad);
    }
  });

  it("exits with a usage message when the environment lacks the URL or the key, and takes no key on the command line", async () => {
    const run = async (args: string[], env: Record<string, string>) => {
      const child = spawn(process.execPath, [...BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const [code] = (await once(child, "exit")) as [number | null];
      return { code, stdout, stderr };
    };
    const noKey = await run([], { AGENT_RENTAL_API_URL: baseUrl });
    expect(noKey).toMatchObject({ code: 2, stdout: "" });
    expect(noKey.stderr).toContain("AGENT_RENTAL_API_KEY is not set");
    const refresh = await run([], { AGENT_RENTAL_API_URL: baseUrl, AGENT_RENTAL_API_KEY: apiKey, AGENT_RENTAL_REFRESH_SECONDS: "soon" });
    expect(refresh).toMatchObject({ code: 2, stdout: "" });
    expect(refresh.stderr).toContain("AGENT_RENTAL_REFRESH_SECONDS must be a whole number of seconds");
    const flag = await run(["--api-key", apiKey], { AGENT_RENTAL_API_URL: baseUrl });
    expect(flag).toMatchObject({ code: 2, stdout: "" });
    expect(flag.stderr).toContain("configuration is read from the environment only");
    expect(flag.stderr).not.toContain(apiKey);
  });

  it("the server exits by itself, with code 0, when its stdin (the client) closes", async () => {
    const extra = await startMcp({ AGENT_RENTAL_API_URL: baseUrl, AGENT_RENTAL_API_KEY: apiKey });
    const pid = extra.transport.pid!;
    await stopMcp(extra);
    expect(() => process.kill(pid, 0)).toThrow();
    const child = spawn(process.execPath, BIN, { cwd: ROOT, env: { PATH: process.env.PATH ?? "", AGENT_RENTAL_API_URL: baseUrl, AGENT_RENTAL_API_KEY: apiKey }, stdio: ["pipe", "pipe", "pipe"] });
    try {
      let stderr = "";
      const exited = once(child, "exit");
      await new Promise<void>((resolve) => child.stderr.on("data", (c: Buffer) => (stderr += c.toString()).includes("ready") && resolve()));
      child.stdin.end();
      const [code, signal] = (await exited) as [number | null, string | null];
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
