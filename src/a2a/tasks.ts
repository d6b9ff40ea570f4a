// An A2A task is a run: the same id, and its state, output, cost and receipt read from the run record.
// What a renter may see of a run is what GET /v1/runs/{run_id} shows: no output while it runs, none while
// a per-query charge is unconfirmed (the task stays working until it lands) or after one was refused, and
// a failed run's partial output only where the REST API would show it. The message that started a task
// is not stored (the run keeps no copy of the task or its input), so a task's history is the message
// only in the answer to the request that sent it.
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Artifact, type Message, type Part, type Task, type TaskStatus } from "@a2a-js/sdk";
import type { RunRecord } from "../execution/runs/run.ts";

/** The id of the one artifact a task produces: the run's output. */
export const OUTPUT_ARTIFACT_ID = "output";

/** The task's context: the one its client named, else the run itself. */
export function contextOf(run: Pick<RunRecord, "run_id" | "context_id">): string {
  return run.context_id ?? run.run_id;
}

/** A per-query charge not confirmed yet, or refused: the output is withheld. */
function withheld(run: RunRecord): boolean {
  return run.settlement === "pending" || run.settlement === "refused";
}

/** The task state of a run: working while it runs and while its charge is unconfirmed. */
export function stateOf(run: RunRecord): TaskState {
  if (run.status === "running" || run.settlement === "pending") return TaskState.TASK_STATE_WORKING;
  return run.status === "completed" ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED;
}

export function isTerminal(state: TaskState): boolean {
  return state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED || state === TaskState.TASK_STATE_REJECTED;
}

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** The output as a part: text for a string, data (JSON) for anything else. */
export function outputPart(output: unknown): Part {
  return typeof output === "string" ? textPart(output) : { content: { $case: "data", value: output ?? null }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/** The output artifact. */
export function outputArtifact(parts: Part[]): Artifact {
  return { artifactId: OUTPUT_ARTIFACT_ID, name: "output", description: "The agent's output, shaped by its output schema", parts, metadata: undefined, extensions: [] };
}

/** A message from the agent (a status's explanation). */
export function agentMessage(run: Pick<RunRecord, "run_id" | "context_id">, text: string): Message {
  return { messageId: randomUUID(), contextId: contextOf(run), taskId: run.run_id, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** Why a task is where it is, when it is not plainly working or completed. */
function statusText(run: RunRecord): string | undefined {
  if (run.status !== "running" && run.settlement === "pending") {
    return `The run finished, but its per-task charge is not confirmed on-chain yet; its output is released once it is (GetTask, or SubscribeToTask to wait). Do not send the task again: that would be a new run, charged again.`;
  }
  if (run.status === "failed") return `${run.error?.code ?? "failed"}: ${run.error?.message ?? "the agent did not complete the task"}`;
  return undefined;
}

export function statusOf(run: RunRecord): TaskStatus {
  const text = statusText(run);
  return { state: stateOf(run), message: text ? agentMessage(run, text) : undefined, timestamp: new Date(run.finished_at ?? run.created_at).toISOString() };
}

/** What the task's metadata says of its run: the run, its cost (exact wei, as a string), its settlement
 * and its receipt in the on-chain run log once logged. */
export function runMetadata(run: RunRecord): Record<string, unknown> {
  return {
    run_id: run.run_id,
    agent_id: run.agent_id,
    listing_id: run.listing_id,
    rental_model: run.rental_model,
    status: run.status,
    cost_wei: run.cost_wei,
    duration_ms: run.duration_ms ?? null,
    settlement: run.settlement,
    settlement_tx: run.settlement_tx ?? null,
    receipt: run.receipt ?? null,
    ...(run.error ? { error: run.error } : {}),
  };
}

/** The output a renter may see of a run, or undefined when none (the REST API's rule). */
export function releasedOutput(run: RunRecord): unknown {
  if (run.status === "running" || withheld(run)) return undefined;
  const output = run.output ?? null;
  if (run.status === "failed" && (output === null || output === "")) return undefined;
  return output;
}

/** The task of a run. `history`: the message that started it (known only while answering it). */
export function taskOf(run: RunRecord, options: { history?: Message[]; artifacts?: boolean } = {}): Task {
  const output = releasedOutput(run);
  return {
    id: run.run_id,
    contextId: contextOf(run),
    status: statusOf(run),
    artifacts: options.artifacts === false || output === undefined ? [] : [outputArtifact([outputPart(output)])],
    history: options.history ?? [],
    metadata: runMetadata(run),
  };
}
