// Agents as tools, each adapter with its real library against the real service: the API served with
// @hono/node-server on a free port, the real chain and contract, dynalite, connected agents on a real
// HTTPS server, and the local model server as the model. The `openai` client and the AI SDK's
// generateText call the tool; the adapter runs the rented agent through the service; the model reads
// the result.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool, ChatCompletionToolMessageParam } from "openai/resources/chat/completions";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, isStepCount } from "ai";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import { startModelServer, type ModelServer } from "../../local/model-server.ts";
import {
  AGENT_TOOL_NAME,
  AccessError,
  AgentRentalClient,
  AgentRunFailedError,
  AgentToolInputError,
  agentToolDefinition,
  createOpenAIAgentTools,
  listRentedAgentTools,
  openAIAgentTool,
  parseAgentToolArguments,
} from "@agent-rental/sdk";
import { agentTool, rentedAgentTools } from "../../sdk/src/tools/ai-sdk.ts";

const MODEL_KEY = "sk-local-tools-test-0123456789";
let world: World;
let baseUrl: string;
let models: ModelServer;
let openai: OpenAI;
let renter: Account;
let client: AgentRentalClient;
let rented: PublishedAgent;
let unrented: PublishedAgent;
/** What the connected agent received: each delivery's task and input. */
const deliveries = () => world.agent.deliveries.map(({ task, input }) => ({ task, input }));

/** The connected agent: reports its task and input as findings; a task starting with "fail" answers HTTP 500. */
function agent(call: AgentCall): void {
  if (call.task.startsWith("fail")) return call.fail(500);
  const input = call.input;
  const findings = [`done: ${call.task}`, ...(input && typeof input === "object" && "topic" in input ? [`topic: ${String(input.topic)}`] : [])];
  call.output({ findings });
}

const MANIFEST = {
  category: "research",
  description: "Finds facts about a topic and reports them as findings",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 10,
};

const publishConnected = (name: string) => world.publishConnected(name, { manifest: MANIFEST, rental: "one_time" });

/** A prompt that makes the model call `tool` with `args` (the model server's directive). */
const callTool = (text: string, tool: string, args: unknown) => `${text} [[tool:${tool} ${JSON.stringify(args)}]]`;

beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: { handler: agent } });
  baseUrl = world.url;
  models = await startModelServer({ apiKey: MODEL_KEY });
  world.defer(() => models.stop());
  openai = new OpenAI({ baseURL: models.openaiBaseUrl, apiKey: MODEL_KEY, maxRetries: 0 });
  rented = await publishConnected("tide-researcher");
  unrented = await publishConnected("tools-unrented");
  renter = await world.account();
  await world.rent(renter, rented);
  client = new AgentRentalClient({ baseUrl });
  await client.signIn(renter);
}, 120_000);

afterAll(() => world?.close());

describe("the tool definition", () => {
  it("is the spec's tool: agent_id and task required, input an optional object", () => {
    expect(agentToolDefinition).toMatchObject({
      name: AGENT_TOOL_NAME,
      parameters: { type: "object", required: ["agent_id", "task"], properties: { agent_id: { type: "string" }, task: { type: "string" }, input: { type: "object" } } },
    });
    expect(agentToolDefinition.description).toMatch(/rented AI agent/);
    expect(openAIAgentTool).toEqual({ type: "function", function: agentToolDefinition });
  });

  it("is assignable to the openai package's ChatCompletionTool (checked by the type checker)", () => {
    const tool: ChatCompletionTool = openAIAgentTool;
    const tools: ChatCompletionTool[] = createOpenAIAgentTools(client).tools;
    expect(tool.type).toBe("function");
    expect(tools).toHaveLength(1);
  });

  it("validates arguments: JSON string or object, required fields, no unknown fields, input an object", () => {
    expect(parseAgentToolArguments('{"agent_id":"a-1","task":"t","input":{"x":1}}')).toEqual({ agent_id: "a-1", task: "t", input: { x: 1 } });
    expect(parseAgentToolArguments({ agent_id: "a-1", task: "t", input: null })).toEqual({ agent_id: "a-1", task: "t" });
    expect(parseAgentToolArguments({ task: "t" }, { agent_id: "fixed" })).toEqual({ agent_id: "fixed", task: "t" });
    const bad: [unknown, RegExp][] = [
      ["{not json", /not valid JSON/],
      ["[1]", /must be a JSON object/],
      [{ task: "t" }, /agent_id is required/],
      [{ agent_id: "a", task: "  " }, /task is required/],
      [{ agent_id: "a", task: 3 }, /task is required/],
      [{ agent_id: "a", task: "t", input: "text" }, /input must be a JSON object/],
      [{ agent_id: "a", task: "t", priority: "priority" }, /Unknown argument: priority/],
      [{ agent_id: "a", task: "x".repeat(32769) }, /too long/],
    ];
    for (const [raw, message] of bad) expect(() => parseAgentToolArguments(raw)).toThrow(message);
    expect(() => parseAgentToolArguments({ agent_id: "other", task: "t" }, { agent_id: "fixed" })).toThrow(AgentToolInputError);
  });
});

describe("OpenAI-style tools with the openai client", () => {
  it("the model calls the agent tool, the adapter runs the rented agent, the model reads the output", async () => {
    const agentTools = createOpenAIAgentTools(client);
    const args = { agent_id: rented.agent_id, task: "summarise", input: { topic: "tides" } };
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: callTool("Research tides", AGENT_TOOL_NAME, args) }];
    const first = await openai.chat.completions.create({ model: "gpt-4o-mini", messages, tools: agentTools.tools });
    const message = first.choices[0]!.message;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    messages.push(message);
    for (const call of message.tool_calls ?? []) {
      if (call.type !== "function" || !agentTools.handles(call)) throw new Error(`unexpected tool call ${JSON.stringify(call)}`);
      const reply: ChatCompletionToolMessageParam = await agentTools.toolMessage(call);
      expect(reply).toEqual({ role: "tool", tool_call_id: call.id, content: '{"findings":["done: summarise","topic: tides"]}' });
      messages.push(reply);
    }
    const second = await openai.chat.completions.create({ model: "gpt-4o-mini", messages, tools: agentTools.tools });
    expect(second.choices[0]!.message.content).toBe('Echo: Research tides\nTool run_agent returned: {"findings":["done: summarise","topic: tides"]}');
    expect(deliveries().filter((d) => d.task === "summarise")).toEqual([{ task: "summarise", input: { topic: "tides" } }]);
    // The request the model received offered the tool in the common function-calling format.
    const sent = models.requests().at(-2)!.body as { tools: unknown[] };
    expect(sent.tools).toEqual([openAIAgentTool]);
  });

  it("offers each rented agent as a tool of its own, named after the agent", async () => {
    const agents = await listRentedAgentTools(client);
    expect(agents.map((a) => [a.name, a.agent_id, a.title])).toEqual([["tide_researcher", rented.listing_id, "Tide Researcher"]]);
    expect(agents[0]!.description).toBe("Tide Researcher: Finds facts about a topic and reports them as findings");
    const agentTools = createOpenAIAgentTools(client, { agents });
    expect(agentTools.tools.map((t) => t.function.name)).toEqual([AGENT_TOOL_NAME, "tide_researcher"]);
    expect(agentTools.tools[1]!.function.parameters).toMatchObject({ required: ["task"] });
    const completion = await openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: callTool("Go", "tide_researcher", { task: "per agent", input: { topic: "kelp" } }) }],
      tools: agentTools.tools,
    });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("not a function call");
    expect(await agentTools.handle(call)).toBe('{"findings":["done: per agent","topic: kelp"]}');
    // A per-agent tool does not take agent_id: the agent is the tool's.
    expect(JSON.parse(await agentTools.handle({ name: "tide_researcher", arguments: JSON.stringify({ agent_id: unrented.agent_id, task: "x" }) }))).toMatchObject({ error: { code: "invalid_tool_arguments", message: expect.stringContaining("agent_id") } });
  });

  it("an agent not rented comes back as an error the model reads: code, message and request id", async () => {
    const agentTools = createOpenAIAgentTools(client);
    const completion = await openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: callTool("Try", AGENT_TOOL_NAME, { agent_id: unrented.agent_id, task: "not mine" }) }],
      tools: agentTools.tools,
    });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("not a function call");
    const content = JSON.parse(await agentTools.handle(call)) as { error: Record<string, unknown> };
    expect(content.error).toMatchObject({ code: "credential_not_found", status: 403, request_id: expect.stringMatching(/^req_/), on_chain_error: { error: "CredentialNotFound" } });
    expect(deliveries().some((d) => d.task === "not mine")).toBe(false);
  });

  it("a failed run is reported with its failure reason and run id; with onError 'throw' it throws", async () => {
    const content = JSON.parse(await createOpenAIAgentTools(client).handle({ name: AGENT_TOOL_NAME, arguments: JSON.stringify({ agent_id: rented.agent_id, task: "fail please" }) })) as { error: Record<string, unknown> };
    expect(content.error).toMatchObject({ code: "agent_http_error", message: expect.stringContaining("HTTP 500"), run_id: expect.stringMatching(/\S/) });
    const throwing = createOpenAIAgentTools(client, { onError: "throw" });
    const failed = await throwing.handle({ name: AGENT_TOOL_NAME, arguments: JSON.stringify({ agent_id: rented.agent_id, task: "fail again" }) }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(AgentRunFailedError);
    expect((failed as AgentRunFailedError).run.status).toBe("failed");
    const refused = await throwing.handle({ name: AGENT_TOOL_NAME, arguments: JSON.stringify({ agent_id: unrented.agent_id, task: "x" }) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AccessError);
  });

  it("bad arguments never reach the service", async () => {
    const agentTools = createOpenAIAgentTools(client);
    const before = deliveries().length;
    for (const raw of ["{oops", '{"task":"no agent"}', JSON.stringify({ agent_id: rented.agent_id, task: "t", input: [1, 2] })]) {
      expect(JSON.parse(await agentTools.handle({ name: AGENT_TOOL_NAME, arguments: raw }))).toMatchObject({ error: { code: "invalid_tool_arguments" } });
    }
    expect(deliveries().length).toBe(before);
    await expect(agentTools.handle({ name: "something_else", arguments: "{}" })).rejects.toThrow(/not an agent tool/);
    expect(agentTools.handles({ name: "something_else", arguments: "{}" })).toBe(false);
  });

  it("honours the abort signal (thrown, never a tool message), and an idempotency key from the tool call id runs a replayed call once", async () => {
    const agentTools = createOpenAIAgentTools(client, { idempotencyKey: ({ toolCallId }) => (toolCallId ? `tools-test-${toolCallId}` : undefined) });
    const call = { id: "call_replayed_1", type: "function", function: { name: AGENT_TOOL_NAME, arguments: JSON.stringify({ agent_id: rented.agent_id, task: "replayed" }) } };
    await expect(agentTools.handle(call, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(deliveries().some((d) => d.task === "replayed")).toBe(false);
    const first = await agentTools.handle(call);
    const again = await agentTools.handle(call);
    expect(again).toBe(first);
    expect(deliveries().filter((d) => d.task === "replayed")).toHaveLength(1);
  });
});

describe("AI SDK tool() with generateText", () => {
  const model = () => createOpenAI({ baseURL: models.openaiBaseUrl, apiKey: MODEL_KEY }).chat("gpt-4o-mini");

  it("the model calls the agent tool; the tool result is the run's structured output", async () => {
    const args = { agent_id: rented.agent_id, task: "ai sdk run", input: { topic: "reefs" } };
    const result = await generateText({
      model: model(),
      prompt: callTool("Look into reefs", AGENT_TOOL_NAME, args),
      tools: { [AGENT_TOOL_NAME]: agentTool(client) },
      stopWhen: isStepCount(3),
      maxRetries: 0,
    });
    expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolName: AGENT_TOOL_NAME, input: args });
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ toolName: AGENT_TOOL_NAME, output: { findings: ["done: ai sdk run", "topic: reefs"] } });
    expect(result.text).toBe('Echo: Look into reefs\nTool run_agent returned: {"findings":["done: ai sdk run","topic: reefs"]}');
  });

  it("offers the rented agents as a tool set", async () => {
    const tools = await rentedAgentTools(client);
    expect(Object.keys(tools).sort()).toEqual([AGENT_TOOL_NAME, "tide_researcher"]);
    const result = await generateText({
      model: model(),
      prompt: callTool("Per agent", "tide_researcher", { task: "ai sdk per agent" }),
      tools,
      stopWhen: isStepCount(3),
      maxRetries: 0,
    });
    expect(result.text).toBe('Echo: Per agent\nTool tide_researcher returned: {"findings":["done: ai sdk per agent"]}');
  });

  it("an access refusal and a failed run reach the model as tool errors with code and request id", async () => {
    const result = await generateText({
      model: model(),
      prompt: `Both ${callTool("", AGENT_TOOL_NAME, { agent_id: unrented.agent_id, task: "refused" })} ${callTool("", AGENT_TOOL_NAME, { agent_id: rented.agent_id, task: "fail in ai sdk" })}`,
      tools: { [AGENT_TOOL_NAME]: agentTool(client) },
      stopWhen: isStepCount(4),
      maxRetries: 0,
    });
    const errors = result.steps.flatMap((s) => s.content.filter((c) => c.type === "tool-error"));
    expect(errors).toHaveLength(2);
    expect(String((errors[0] as { error: unknown }).error)).toMatch(/^AgentToolCallError: Error credential_not_found \(HTTP 403, request id req_\w+, contract error CredentialNotFound\)/);
    expect(String((errors[1] as { error: unknown }).error)).toMatch(/Error agent_http_error \(run id \S+\)/);
    expect(result.text).toMatch(/Tool run_agent returned: .*credential_not_found/);
    expect(result.text).toMatch(/Tool run_agent returned: .*agent_http_error/);
  });

  it("invalid model arguments are refused before the service is called", async () => {
    const before = deliveries().length;
    const result = await generateText({
      model: model(),
      prompt: callTool("Bad", AGENT_TOOL_NAME, { agent_id: rented.agent_id, task: "" }),
      tools: { [AGENT_TOOL_NAME]: agentTool(client) },
      stopWhen: isStepCount(3),
      maxRetries: 0,
    });
    const errors = result.steps.flatMap((s) => s.content.filter((c) => c.type === "tool-error"));
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as { error: unknown }).error)).toMatch(/task is required/);
    expect(deliveries().length).toBe(before);
  });

  it("passes the framework's abort signal to the run", async () => {
    const controller = new AbortController();
    controller.abort();
    const run = agentTool(client);
    await expect(Promise.resolve(run.execute!({ agent_id: rented.agent_id, task: "never" }, { toolCallId: "c1", messages: [], abortSignal: controller.signal, context: {} }))).rejects.toMatchObject({ name: "AbortError" });
    expect(deliveries().some((d) => d.task === "never")).toBe(false);
  });
});
