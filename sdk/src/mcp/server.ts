// An MCP server that exposes the caller's rented agents as tools: one tool per active rental credential
// (named after the agent, described by its listing, taking the agent's own input schema plus `task`,
// answering its output schema as structuredContent) plus the generic agent tool (agent_id, task,
// input?). A tool call runs the agent with `client.execute`; the result is the run's output (text, or
// JSON text for structured output). A failed run, an API refusal or bad arguments are tool errors
// (isError) naming the code and the request id; the server keeps serving. Import from
// "@agent-rental/sdk/mcp"; `@modelcontextprotocol/sdk` is an optional peer dependency of the SDK.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AgentRentalClient } from "../client.ts";
import { describeToolError, formatToolError, runAgentTool } from "../tools/run.ts";
import { listRentedAgentTools, type RentedAgentTool } from "../tools/rented.ts";
import { createAgentToolServer, type AgentToolEntry } from "@agent-rental/core/mcp";

export { MCP_SERVER_NAME, MCP_SERVER_VERSION, createAgentToolServer, type AgentToolEntry, type AgentToolHost, type AgentToolCall, type AgentToolRun } from "@agent-rental/core/mcp";
export { agentToolSchemas, agentCallOf, type AgentToolSchemas, type AgentInputShape } from "@agent-rental/core/agent-tools";

export interface AgentMcpServerOptions {
  /** The rented agents to offer as tools of their own (from `listRentedAgentTools`). Default none. */
  agents?: RentedAgentTool[];
  /** Offer the generic tool (agent_id, task, input?). Default true. */
  generic?: boolean;
  /** Strings never to show in tool output (the API key, for one); each is replaced by `[redacted]`. */
  secrets?: string[];
  /** Where diagnostics go (never stdout, the MCP channel). Default: nowhere. */
  log?: (message: string) => void;
  /**
   * While a run is in progress, a progress notification is sent this often (milliseconds) when the
   * client asked for progress (a progressToken), so clients that reset their request timeout on
   * progress wait for long runs (up to 300 s). Default 10000; 0 disables.
   */
  progressIntervalMs?: number;
}

/** Replaces each secret (8 characters or more) with `[redacted]`. */
function redactor(secrets: string[] = []): (text: string) => string {
  const kept = secrets.filter((s) => s.length >= 8);
  return (text) => kept.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
}

const entryOf = (agent: RentedAgentTool): AgentToolEntry => ({ name: agent.name, title: agent.title, description: agent.description, agent_id: agent.agent_id, schemas: agent.schemas });

/** The MCP server with the agent tools registered; connect it to a transport to serve. */
export function createAgentMcpServer(client: AgentRentalClient, options: AgentMcpServerOptions = {}): Server {
  return buildAgentMcpServer(client, options).server;
}

/** The server and a way to replace its per-agent tools (clients are told with tools/list_changed). */
function buildAgentMcpServer(client: AgentRentalClient, options: AgentMcpServerOptions): { server: Server; setAgents(agents: RentedAgentTool[]): { added: string[]; removed: string[] } } {
  const redact = redactor(options.secrets);
  const log = (message: string) => options.log?.(redact(message));
  const generic = options.generic !== false;
  const progressIntervalMs = options.progressIntervalMs ?? 10_000;
  let current: AgentToolEntry[] = [];
  const server = createAgentToolServer({
    generic,
    tools: async () => current,
    redact,
    log,
    describeError: describeToolError,
    async run(call) {
      let ticks = 0;
      const timer =
        call.progress !== undefined && progressIntervalMs > 0
          ? setInterval(() => call.progress?.((ticks += 1), `${call.toolName}: the agent is working`), progressIntervalMs)
          : undefined;
      try {
        return await runAgentTool(client, call.request, { signal: call.signal });
      } finally {
        if (timer !== undefined) clearInterval(timer);
      }
    },
  });
  const same = (a: AgentToolEntry, b: AgentToolEntry) => JSON.stringify(a) === JSON.stringify(b);
  const setAgents = (agents: RentedAgentTool[]) => {
    const next = agents.map(entryOf).filter((entry) => !(generic && entry.name === "run_agent"));
    const before = new Map(current.map((entry) => [entry.name, entry]));
    const after = new Map(next.map((entry) => [entry.name, entry]));
    const removed = [...before.keys()].filter((name) => !after.has(name) || !same(before.get(name)!, after.get(name)!));
    const added = [...after.keys()].filter((name) => !before.has(name) || !same(before.get(name)!, after.get(name)!));
    current = next;
    if ((added.length > 0 || removed.length > 0) && server.transport !== undefined) void server.sendToolListChanged().catch(() => undefined);
    return { added, removed };
  };
  setAgents(options.agents ?? []);
  return { server, setAgents };
}

export interface LoadedAgentMcpServer {
  server: Server;
  /** The rented agents offered as tools at start. */
  agents: RentedAgentTool[];
  /**
   * Lists the rented agents again and brings the per-agent tools in line: a newly rented agent gains its
   * tool, one whose rental ended (expired, revoked, emptied) loses it, and connected clients are sent
   * notifications/tools/list_changed. When the listing fails the tools stay as they are.
   */
  refresh(): Promise<{ added: string[]; removed: string[] }>;
}

/**
 * Lists the caller's rented agents and builds the server with one tool per agent plus the generic one.
 * When the credentials cannot be listed, the server still starts with the generic tool (whose calls
 * then report the API's error) and the failure is logged.
 */
export async function loadAgentMcpServer(client: AgentRentalClient, options: Omit<AgentMcpServerOptions, "agents"> = {}): Promise<LoadedAgentMcpServer> {
  const redact = redactor(options.secrets);
  const list = () =>
    listRentedAgentTools(client, {
      onSkip: (credential, reason) => options.log?.(redact(`not offering ${credential.listing_id} (${credential.listing_title}): ${reason}`)),
    });
  let agents: RentedAgentTool[] = [];
  try {
    agents = await list();
  } catch (error) {
    options.log?.(redact(`could not list the rented agents, offering only the generic tool: ${formatToolError(error)}`));
  }
  options.log?.(`offering ${agents.length} rented agent tool${agents.length === 1 ? "" : "s"}${agents.length > 0 ? `: ${agents.map((a) => a.name).join(", ")}` : ""}`);
  const built = buildAgentMcpServer(client, { ...options, agents });
  const refresh = async () => {
    let next: RentedAgentTool[];
    try {
      next = await list();
    } catch (error) {
      options.log?.(redact(`could not list the rented agents again, keeping the current tools: ${formatToolError(error)}`));
      return { added: [], removed: [] };
    }
    const change = built.setAgents(next);
    if (change.added.length + change.removed.length > 0) {
      options.log?.(`tools changed: ${[...change.added.map((n) => `+${n}`), ...change.removed.map((n) => `-${n}`)].join(", ")}`);
    }
    return change;
  };
  return { server: built.server, agents, refresh };
}
