// An MCP server that exposes the caller's rented agents as tools: one tool per active rental credential
// (named after the agent, described by its listing, input {task, input?}) plus the generic agent tool
// (agent_id, task, input?). A tool call runs the agent with `client.execute`; the result is the run's
// output (text, JSON text for structured output, which also travels as structuredContent). A failed
// run, an API refusal or bad arguments are tool errors (isError) naming the code and the request id;
// the server keeps serving. Import from "@agent-rental/sdk/mcp"; `@modelcontextprotocol/sdk` (and its
// peer `zod`) are optional peer dependencies of the SDK.
import { McpServer, type RegisteredTool, type ToolCallback } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AgentRentalClient } from "../client.ts";
import {
  AGENT_TOOL_DESCRIPTION,
  AGENT_TOOL_NAME,
  formatToolError,
  formatToolOutput,
  runAgentTool,
  type AgentToolArguments,
} from "../tools/definition.ts";
import { listRentedAgentTools, type RentedAgentTool } from "../tools/rented.ts";

export const MCP_SERVER_NAME = "agent-rental";
export const MCP_SERVER_VERSION = "0.1.0";

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

const taskSchema = z.string().min(1, "task must not be empty").max(32768).describe("What the agent should do, in natural language.");
const inputSchema = z
  .record(z.string(), z.unknown())
  .optional()
  .describe("Structured input for the agent, shaped by its input schema. Omit when the task says everything.");

const genericInput = z
  .object({
    agent_id: z.string().min(1, "agent_id must not be empty").describe("The rented agent to run: its agent id (for example contract-reviewer-1a2b3c4d) or listing id."),
    task: taskSchema,
    input: inputSchema,
  })
  .strict();
const perAgentInput = z.object({ task: taskSchema, input: inputSchema }).strict();

type ToolExtra = Parameters<ToolCallback<typeof perAgentInput>>[1];

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Replaces each secret (8 characters or more) with `[redacted]`. */
function redactor(secrets: string[] = []): (text: string) => string {
  const kept = secrets.filter((s) => s.length >= 8);
  return (text) => kept.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
}

/** The MCP server with the agent tools registered; connect it to a transport to serve. */
export function createAgentMcpServer(client: AgentRentalClient, options: AgentMcpServerOptions = {}): McpServer {
  return buildAgentMcpServer(client, options).server;
}

/** The server and a way to replace its per-agent tools (clients are told with tools/list_changed). */
function buildAgentMcpServer(client: AgentRentalClient, options: AgentMcpServerOptions): { server: McpServer; setAgents(agents: RentedAgentTool[]): { added: string[]; removed: string[] } } {
  const redact = redactor(options.secrets);
  const log = (message: string) => options.log?.(redact(message));
  const server = new McpServer({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });

  const progressIntervalMs = options.progressIntervalMs ?? 10_000;
  const run = async (toolName: string, args: AgentToolArguments, extra: ToolExtra): Promise<CallToolResult> => {
    const { signal } = extra;
    const progressToken = extra._meta?.progressToken;
    let ticks = 0;
    const timer =
      progressToken !== undefined && progressIntervalMs > 0
        ? setInterval(() => {
            ticks += 1;
            extra
              .sendNotification({ method: "notifications/progress", params: { progressToken, progress: ticks, message: `${toolName}: the agent is working` } })
              .catch(() => undefined);
          }, progressIntervalMs)
        : undefined;
    try {
      const result = await runAgentTool(client, args, { signal });
      log(`${toolName}: run ${result.run_id} completed in ${result.duration_ms} ms`);
      return {
        content: [{ type: "text", text: redact(formatToolOutput(result.output)) }],
        ...(isPlainObject(result.output) ? { structuredContent: JSON.parse(redact(JSON.stringify(result.output))) as Record<string, unknown> } : {}),
        _meta: { run: { run_id: result.run_id, agent_id: result.agent_id, cost_wei: result.cost_wei.toString(), duration_ms: result.duration_ms } },
      };
    } catch (error) {
      if (signal.aborted) throw error;
      const text = redact(formatToolError(error));
      log(`${toolName}: ${text}`);
      return { content: [{ type: "text", text }], isError: true };
    } finally {
      if (timer !== undefined) clearInterval(timer);
    }
  };

  const annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
  if (options.generic !== false) {
    server.registerTool(AGENT_TOOL_NAME, { title: "Run a rented agent", description: AGENT_TOOL_DESCRIPTION, inputSchema: genericInput, annotations }, (args, extra) =>
      run(AGENT_TOOL_NAME, { agent_id: args.agent_id, task: args.task, ...(args.input !== undefined ? { input: args.input } : {}) }, extra),
    );
  }
  // One tool per rented agent, keyed by tool name; replaced as a whole when the agent behind a name changes.
  const perAgent = new Map<string, { agent: RentedAgentTool; tool: RegisteredTool }>();
  const sameAgent = (a: RentedAgentTool, b: RentedAgentTool) => a.agent_id === b.agent_id && a.title === b.title && a.description === b.description;
  const register = (agent: RentedAgentTool) =>
    server.registerTool(
      agent.name,
      { title: agent.title, description: `${agent.description}\n\nRuns a task on this rented agent (agent id ${agent.agent_id}) and returns its finished output.`, inputSchema: perAgentInput, annotations },
      (args, extra) => run(agent.name, { agent_id: agent.agent_id, task: args.task, ...(args.input !== undefined ? { input: args.input } : {}) }, extra),
    );
  const setAgents = (agents: RentedAgentTool[]) => {
    const wanted = new Map(agents.map((agent) => [agent.name, agent]));
    const added: string[] = [];
    const removed: string[] = [];
    for (const [name, entry] of [...perAgent]) {
      const next = wanted.get(name);
      if (next && sameAgent(next, entry.agent)) continue;
      entry.tool.remove();
      perAgent.delete(name);
      removed.push(name);
    }
    for (const agent of agents) {
      if (perAgent.has(agent.name) || (agent.name === AGENT_TOOL_NAME && options.generic !== false)) continue;
      perAgent.set(agent.name, { agent, tool: register(agent) });
      added.push(agent.name);
    }
    return { added, removed };
  };
  setAgents(options.agents ?? []);
  return { server, setAgents };
}

export interface LoadedAgentMcpServer {
  server: McpServer;
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
    let current: RentedAgentTool[];
    try {
      current = await list();
    } catch (error) {
      options.log?.(redact(`could not list the rented agents again, keeping the current tools: ${formatToolError(error)}`));
      return { added: [], removed: [] };
    }
    const change = built.setAgents(current);
    if (change.added.length + change.removed.length > 0) {
      options.log?.(`tools changed: ${[...change.added.map((n) => `+${n}`), ...change.removed.map((n) => `-${n}`)].join(", ")}`);
    }
    return change;
  };
  return { server: built.server, agents, refresh };
}
