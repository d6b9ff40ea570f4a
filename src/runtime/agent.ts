// The declarative agent runtime: the entry a fresh sandbox runs for one run (see docs/design/runtime.md). It
// builds the agent's model and tools from the payload, asks the model with the manifest's system prompt
// and the renter's task and input, streams the answer as it arrives and returns it shaped by the output
// schema. Every connection goes through the run's egress guard; a failure is thrown as one short reason
// that never carries the provider key, a header or the request body.
import { isStepCount, jsonSchema, Output, streamText, tool, type ToolSet } from "ai";
import type { EntryIo } from "../protocols/runner.ts";
import type { ToolName } from "@agent-rental/core/manifest";
import { createRunEgress } from "./egress.ts";
import { AgentRunError, describeFailure, RunDeadlineError, scrub } from "./errors.ts";
import { createModel } from "./model.ts";
import { JsonStepStream, outputShape, unwrap } from "./output.ts";
import type { AgentRunOutput, AgentRunPayload } from "./payload.ts";
import { buildTools } from "./tools/index.ts";
import type { IsolatedVm } from "./tools/js-eval.ts";
import type { RuntimeTool } from "./tools/types.ts";

/** Tool steps allowed at most, whatever the payload asks. */
export const MAX_TOOL_STEPS = 50;
/** Retries of a failed model call (429, 5xx, a dropped connection), within the run's deadline. */
const MODEL_RETRIES = 2;
const TOOL_ERROR_MAX_CHARS = 1000;

// The AI SDK prints warnings to the console; the sandbox's console is discarded, and the cloud runner's
// is a log, which must not receive anything of a run.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/**
 * Runs one declarative agent: the sandbox entry (`export async function run(payload, io)`). Streams the
 * answer with `io.emit`, returns `{output, usage?, toolCalls?}`, and throws an Error with a short reason
 * (no key, header or request body in it) when the run fails; deltas already emitted stay with the caller.
 *
 * @example
 * const result = await pool.run({ runId, entry: "/srv/dist/runtime/agent.mjs", payload, timeoutMs: 60_000, memoryMb: 128, ...agentSandboxNeeds(payload.agent.tools) }, onEvent);
 */
export async function run(payload: AgentRunPayload, io: EntryIo): Promise<AgentRunOutput> {
  const secrets = [payload?.agent?.apiKey, payload?.search?.apiKey];
  const abort = new AbortController();
  const remaining = Math.max(0, (io?.deadline ?? Date.now()) - Date.now());
  const deadline = setTimeout(() => abort.abort(new RunDeadlineError()), remaining);
  try {
    checkPayload(payload);
    return await runAgent(payload, io, abort.signal, remaining);
  } catch (error) {
    const reason = abort.signal.aborted ? "the run reached its time limit" : describeFailure(error);
    throw new Error(scrub(reason, secrets));
  } finally {
    clearTimeout(deadline);
  }
}

async function runAgent(payload: AgentRunPayload, io: EntryIo, signal: AbortSignal, remainingMs: number): Promise<AgentRunOutput> {
  const { agent } = payload;
  const secrets = [agent.apiKey, payload.search?.apiKey];
  const egress = createRunEgress(payload.egress, remainingMs);
  const configured = await buildTools(agent.tools, {
    egress,
    input: payload.input,
    ...(payload.search ? { search: payload.search } : {}),
    loadIsolatedVm: async () => ((await import("isolated-vm")) as unknown as { default: IsolatedVm }).default,
  });
  const model = await createModel(agent, egress.guard);
  const shape = outputShape(agent.outputSchema);
  const maxSteps = Math.min(MAX_TOOL_STEPS, Math.max(0, Math.floor(Number(payload.maxSteps) || 0)));
  const toolCalls: Partial<Record<ToolName, number>> = {};
  const tools = sdkTools(configured, signal, secrets);
  const withTools = configured.size > 0 && maxSteps > 0;

  const result = streamText({
    model,
    system: agent.systemPrompt,
    messages: [{ role: "user", content: userMessage(payload.task, payload.input) }],
    ...(withTools ? { tools, stopWhen: isStepCount(maxSteps + 1), prepareStep: ({ stepNumber }: { stepNumber: number }) => (stepNumber >= maxSteps ? { toolChoice: "none" as const, activeTools: [] } : {}) } : {}),
    ...(shape.kind === "json" ? { output: Output.object({ schema: jsonSchema(shape.schema) }) } : {}),
    abortSignal: signal,
    maxRetries: MODEL_RETRIES,
    // errors are taken from the stream below; the default handler would print them, request body and all
    onError: () => undefined,
  });

  let text = "";
  let stepText = "";
  let json: JsonStepStream | undefined;
  const emit = (delta: string) => {
    if (delta === "") return;
    text += delta;
    io.emit(delta);
  };
  const noAnswer = () => new AgentRunError(`the model gave no answer within ${maxSteps} tool step${maxSteps === 1 ? "" : "s"}`);
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "start-step":
          stepText = "";
          json = shape.kind === "json" ? new JsonStepStream(shape.wrapped) : undefined;
          break;
        case "text-delta":
          if (json) emit(json.push(part.text));
          else {
            // steps of prose are kept apart by a blank line
            if (stepText === "" && text !== "" && part.text !== "") emit("\n\n");
            stepText += part.text;
            emit(part.text);
          }
          break;
        case "tool-call":
          if (configured.has(part.toolName as ToolName)) toolCalls[part.toolName as ToolName] = (toolCalls[part.toolName as ToolName] ?? 0) + 1;
          break;
        case "error":
          throw part.error;
        case "abort":
          throw signal.reason instanceof Error ? signal.reason : new RunDeadlineError();
      }
    }
  } catch (error) {
    // a model that still calls a tool once its tool steps are spent (and no tools are offered)
    if (error instanceof Error && error.name === "AI_ToolChoiceViolationError") throw noAnswer();
    throw error;
  }
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new RunDeadlineError();

  const usage = await result.totalUsage;
  let output: unknown;
  if (shape.kind === "json") {
    output = unwrap(shape, await result.output);
  } else {
    if (text.trim() === "") throw Object.keys(toolCalls).length > 0 ? noAnswer() : new AgentRunError("the model gave an empty answer");
    output = text;
  }
  return {
    output,
    ...(usage && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)
      ? { usage: { ...(usage.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}), ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}) } }
      : {}),
    ...(Object.keys(toolCalls).length > 0 ? { toolCalls: toolCalls as Record<string, number> } : {}),
  };
}

/** The renter's task, then the input: text as given, an object as indented JSON. */
export function userMessage(task: string, input: AgentRunPayload["input"]): string {
  if (input === null || input === undefined || input === "") return task;
  if (typeof input === "string") return `${task}\n\nInput:\n${input}`;
  return `${task}\n\nInput (JSON):\n${JSON.stringify(input, null, 2)}`;
}

/** The configured tools as AI SDK tools. A tool that fails answers the model with `{error}`: a bad
 * argument or a refusal is something the model can correct, not a reason to fail the run. */
function sdkTools(configured: Map<ToolName, RuntimeTool>, runSignal: AbortSignal, secrets: readonly (string | null | undefined)[]): ToolSet {
  const tools: ToolSet = {};
  for (const [name, runtimeTool] of configured) {
    tools[name] = tool({
      description: runtimeTool.description,
      inputSchema: jsonSchema(runtimeTool.inputSchema),
      execute: async (input: unknown, options: { abortSignal?: AbortSignal }) => {
        try {
          return await runtimeTool.execute(input, options.abortSignal ?? runSignal);
        } catch (error) {
          if (runSignal.aborted) throw error;
          return { error: scrub(toolErrorMessage(error), secrets).slice(0, TOOL_ERROR_MAX_CHARS) };
        }
      },
    });
  }
  return tools;
}

function toolErrorMessage(error: unknown): string {
  if (!(error instanceof Error)) return "the tool failed";
  if (error.name === "ToolInputError" || error.name === "EgressRefusedError") return error.message;
  if (error.name === "TimeoutError" || error.name === "AbortError") return "the call timed out";
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (cause.name === "EgressRefusedError") return cause.message;
    if (typeof code === "string" && /^[A-Z_]+$/.test(code)) return `the request failed (${code})`;
    cause = cause.cause;
  }
  return "the request failed";
}

function checkPayload(payload: AgentRunPayload): void {
  if (payload === null || typeof payload !== "object") throw new AgentRunError("the run payload is missing");
  const { agent } = payload;
  if (agent === null || typeof agent !== "object") throw new AgentRunError("the run payload has no agent");
  if (typeof agent.systemPrompt !== "string") throw new AgentRunError("the agent has no system prompt");
  if (typeof payload.task !== "string" || payload.task.trim() === "") throw new AgentRunError("the run has no task");
  if (payload.egress === null || typeof payload.egress !== "object") throw new AgentRunError("the run payload has no egress rules");
}
