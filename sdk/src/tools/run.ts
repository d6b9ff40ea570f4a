// Running an agent tool call with the SDK's client: the execute request, a failed or unsettled run as
// an error, and errors described for a model (code, request id). The tool's definition and argument
// rules are the shared core's (@agent-rental/core/agent-tools).
import { formatToolErrorInfo, AgentToolInputError, type AgentToolArguments, type AgentToolErrorInfo } from "@agent-rental/core/agent-tools";
import type { AgentRentalClient } from "../client.ts";
import { AgentRentalError } from "../errors.ts";
import type { Run } from "../types.ts";

/** The run behind a tool call that produced no result: a failed run, or a completed one whose charge is
 * not confirmed yet, whose `error` then carries the tool's own code `settlement_pending` (no run
 * failure code: the run itself did not fail). */
export type UnfinishedRun = Omit<Run, "error"> & { error?: { code: string; message: string } };

/** A run that finished with status `failed`: the tool call did not produce a result. */
export class AgentRunFailedError extends Error {
  readonly code: string;
  readonly run: UnfinishedRun;
  constructor(run: UnfinishedRun) {
    const code = run.error?.code ?? "run_failed";
    super(`Run ${run.run_id} of agent ${run.agent_id} failed (${code}): ${run.error?.message ?? "the agent did not complete the task"}`);
    this.name = "AgentRunFailedError";
    this.code = code;
    this.run = run;
  }
}

/** Options of one agent tool call. */
export interface AgentToolCallOptions {
  /** Aborts the call (the run itself goes on server side and stays readable with `client.runs.get`). */
  signal?: AbortSignal | undefined;
  /** The Idempotency-Key of the execute request (default: a random key per call, still reused by the SDK's own retries). */
  idempotencyKey?: string | undefined;
}

/** Runs the tool call with `client.execute`; answers the completed Run, throws AgentRunFailedError for a failed one. */
export async function runAgentTool(client: AgentRentalClient, args: AgentToolArguments, options: AgentToolCallOptions = {}): Promise<Run> {
  const run = await client.execute(
    { agent_id: args.agent_id, task: args.task, ...(args.input !== undefined ? { input: args.input } : {}) },
    { ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}), ...(options.signal ? { signal: options.signal } : {}) },
  );
  if (run.status !== "completed") throw new AgentRunFailedError(run);
  // Completed, but its per-task charge is not confirmed on-chain yet: the output is withheld until it is
  // (client.runs.get releases it). Running the task again would be a second, charged run: say so.
  if (run.settlement === "pending") {
    throw new AgentRunFailedError({
      ...run,
      error: { code: "settlement_pending", message: `Run ${run.run_id} completed, but its charge is not confirmed on-chain yet; its output is released once it is (runs.get("${run.run_id}")). Do not run the task again: that would be a new run, charged again.` },
    });
  }
  return run;
}

/** Describes an error of a tool call: an API refusal, a failed run, bad arguments or a connection failure. */
export function describeToolError(error: unknown): AgentToolErrorInfo {
  if (error instanceof AgentRunFailedError) return { code: error.code, message: error.run.error?.message ?? error.message, run_id: error.run.run_id };
  if (error instanceof AgentToolInputError) return { code: error.code, message: error.message };
  if (error instanceof AgentRentalError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.status !== 0 ? { status: error.status } : {}),
      ...(error.requestId !== undefined ? { request_id: error.requestId } : {}),
      ...(error.onChainError !== undefined ? { on_chain_error: error.onChainError } : {}),
    };
  }
  return { code: "tool_error", message: error instanceof Error ? error.message : String(error) };
}

/** A tool call that did not produce a result, with a message that names the code and the request id. */
export class AgentToolCallError extends Error {
  readonly code: string;
  readonly info: AgentToolErrorInfo;
  constructor(cause: unknown) {
    super(formatToolError(cause), { cause });
    this.name = "AgentToolCallError";
    this.info = describeToolError(cause);
    this.code = this.info.code;
  }
}

/** One line for a tool error: `Error credential_not_found (HTTP 403, request id req_…): message`. */
export function formatToolError(error: unknown): string {
  return formatToolErrorInfo(describeToolError(error));
}

/** Whether the call was aborted by its caller: the abort is rethrown, never turned into a tool result. */
export function isAbort(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
