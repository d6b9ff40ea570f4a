// The A2A executor of one agent for one caller: a message is a run. It plays the part of the SDK's
// AgentExecutor over the run-backed task store (task-store.ts), yielding each task's events as the run
// goes instead of publishing them to an event bus (the run, not the request, holds the task's state).
// SendMessage and SendStreamingMessage go through the same admission (the listing, the credential read
// live from the chain, the execution rate rule, the per-query reservation, the listing's concurrency)
// and the same performRun (sandbox, output checks, charge, record, receipt) as POST /v1/execute and
// /v1/execute/stream; the message's messageId is the run's Idempotency-Key. A resumed stream and
// SubscribeToTask follow the run's record, resumable by offset.
import { createHash } from "node:crypto";
import { TaskState, type Message, type SendMessageRequest, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { Services } from "./services.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../errors.ts";
import { admitRun, type AdmissionResult } from "../execution/admission.ts";
import { performRun } from "../execution/perform.ts";
import { claimedRun, requestHash, waitForRun } from "../execution/idempotency/protocol.ts";
import { releasedText, type RunRecord } from "../execution/runs/run.ts";
import { claimedRuns, getRun } from "../execution/runs/run.store.ts";
import { invalidParams, unsupportedOperation } from "./errors.ts";
import { executeRequestOf } from "./params.ts";
import { contextOf, isTerminal, outputArtifact, stateOf, statusOf, taskOf, textPart } from "./tasks.ts";
import type { RunTaskStore } from "./task-store.ts";

/** How long a request follows a run it did not start (an earlier request's, or a subscription). */
const FOLLOW_MS = 310_000;
const POLL_MS = 100;

export interface A2aCallOptions {
  services: Services;
  principal: Principal;
  /** The agent as the URL names it (an agent id, a listing id or an on-chain id). */
  agentId: string;
  /** Applies the execution rate rule to a run of the listing (the route owns its HTTP side). */
  rateLimit(listingId: string): Promise<void>;
  /** Where a resumed stream starts: an offset into the run's output (Last-Event-ID). */
  resumeFrom: number;
  /** Called with the run id once a request has started or found its run (the access log's run id). */
  onRun(runId: string): void;
}

/** The ids of a stream's events, in order: offsets into the output, for Last-Event-ID. */
export type EventIds = string[];

/** A FIFO of values pushed by the run and pulled by the stream. */
function channel<T>() {
  const items: T[] = [];
  let wake: (() => void) | undefined;
  return {
    push(item: T) {
      items.push(item);
      wake?.();
    },
    async next(): Promise<T> {
      while (items.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      return items.shift()!;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A finished run's record: as stored, or what performRun answered where the record's last write did not land. */
function finishedRecord(run: RunRecord, stored: RunRecord | null, performed: Awaited<ReturnType<typeof performRun>>): RunRecord {
  if (stored && stored.status !== "running") return stored;
  const { response, settlementPending } = performed;
  return { ...run, status: response.status, output: response.output, cost_wei: response.cost_wei.toString(), duration_ms: response.duration_ms, settlement: settlementPending ? "pending" : "none", ...(response.error ? { error: response.error } : {}) };
}

export interface RunExecutor {
  execute(params: SendMessageRequest): Promise<Task>;
  executeStream(params: SendMessageRequest): AsyncGenerator<StreamResponse>;
  resubscribe(taskId: string): AsyncGenerator<StreamResponse>;
}

/** The executor for one request. `eventIds` receives the SSE id of each streamed event, in order. */
/** The events of the runs one request streams; `eventIds` receives each event's SSE id, in order. */
function runEvents(services: Services, eventIds: EventIds) {
  /** The message as the task's history: with the task and context it now belongs to. */
  const historyOf = (message: Message, run: RunRecord): Message[] => [{ ...message, taskId: run.run_id, contextId: contextOf(run) }];

  /** A run's record once its charge is no longer pending (or `deadline` passed). */
  async function settled(runId: string, deadline: number): Promise<RunRecord | null> {
    for (;;) {
      const record = await getRun(services.tables, runId);
      if (!record || (record.status !== "running" && record.settlement !== "pending") || Date.now() >= deadline) return record;
      await sleep(POLL_MS);
    }
  }

  /** The events of a run the request follows (a resumed stream, a subscription): its text after `from`,
   * then its final output and state once the run has ended and its charge is no longer pending. */
  async function* follow(runId: string, from: number): AsyncGenerator<StreamResponse> {
    const deadline = Date.now() + FOLLOW_MS;
    let offset = from;
    for (;;) {
      const record = await getRun(services.tables, runId);
      if (!record) return;
      const text = releasedText(record);
      if (text.length > offset) {
        const delta = text.slice(offset);
        eventIds.push(String(text.length));
        yield artifactUpdate(record, [textPart(delta)], offset > 0, false);
        offset = text.length;
      }
      if (record.status !== "running") {
        const final = record.settlement === "pending" ? await settled(runId, deadline) : record;
        yield* ending(final ?? record);
        return;
      }
      if (Date.now() >= deadline) return;
      await sleep(POLL_MS);
    }
  }

  function artifactUpdate(run: Pick<RunRecord, "run_id" | "context_id">, parts: ReturnType<typeof textPart>[], append: boolean, lastChunk: boolean): StreamResponse {
    return { payload: { $case: "artifactUpdate", value: { taskId: run.run_id, contextId: contextOf(run), artifact: outputArtifact(parts), append, lastChunk, metadata: undefined } } };
  }

  /** A finished run's last events: its output (replacing the streamed text) when the renter may have
   * it, then its status with the run's metadata. */
  function* ending(run: RunRecord): Generator<StreamResponse> {
    const task = taskOf(run);
    const artifact = task.artifacts[0];
    if (artifact) {
      eventIds.push("output");
      yield { payload: { $case: "artifactUpdate", value: { taskId: run.run_id, contextId: contextOf(run), artifact, append: false, lastChunk: true, metadata: undefined } } };
    }
    eventIds.push("done");
    yield { payload: { $case: "statusUpdate", value: { taskId: run.run_id, contextId: contextOf(run), status: statusOf(run), metadata: task.metadata } } };
  }

  function firstTask(run: RunRecord, history: Message[]): StreamResponse {
    eventIds.push("task");
    return { payload: { $case: "task", value: { ...taskOf(run, { history }), artifacts: [] } } };
  }
  return { historyOf, follow, artifactUpdate, ending, firstTask };
}

export function createRunExecutor(options: A2aCallOptions, store: RunTaskStore, eventIds: EventIds): RunExecutor {
  const { services, principal } = options;
  const { historyOf, follow, artifactUpdate, ending, firstTask } = runEvents(services, eventIds);

  /** The checks of a message before anything runs, and its run's request. */
  async function prepare(params: SendMessageRequest) {
    const message = params.message;
    if (!message) throw invalidParams("params.message is required.", { field: "message" });
    if (message.role !== 1 /* ROLE_USER */) throw invalidParams("message.role must be ROLE_USER (\"user\" in v0.3).", { field: "message.role" });
    if (message.taskId) {
      // A run takes one message: a task, once started, takes no other.
      await store.ownRun(message.taskId);
      throw unsupportedOperation(`Task ${message.taskId} takes no further messages: each task is one run of the agent. Send a new message without taskId.`);
    }
    if (params.configuration?.returnImmediately) {
      throw unsupportedOperation("returnImmediately is not offered: a run is answered when it ends. Use SendStreamingMessage to follow it as it goes, or SendMessage and wait.");
    }
    const request = executeRequestOf(options.agentId, message, params.metadata as { timeout_seconds?: number; priority?: "standard" | "priority" } | undefined);
    const contextId = message.contextId || undefined;
    // The messageId is the run's Idempotency-Key (scoped to the wallet, like the header): a message sent
    // again, streamed or not, follows the run it started; the same messageId with another message is
    // refused. Hashed into the key's form (1 to 255 printable characters).
    const key = `a2a:${createHash("sha256").update(message.messageId).digest("hex")}`;
    const bodyHash = requestHash("a2a", { ...request, agent: await store.listing(), context: contextId ?? null });
    return { request, contextId, key, bodyHash, message };
  }

  async function admit(params: SendMessageRequest, delivery: "stream" | "sync") {
    const prepared = await prepare(params);
    const admitted: AdmissionResult = await admitRun(services, principal, prepared.request, {
      idempotency: { key: prepared.key, bodyHash: prepared.bodyHash },
      delivery,
      rateLimit: options.rateLimit,
      ...(prepared.contextId ? { contextId: prepared.contextId } : {}),
    });
    return { prepared, admitted };
  }

  /** SendMessage: the run performed whole (or the run an earlier message with its messageId started). */
  async function execute(params: SendMessageRequest): Promise<Task> {
    const { prepared, admitted } = await admit(params, "sync");
    if (admitted.kind === "existing") {
      options.onRun(admitted.runId);
      const record = await waitForRun(claimedRuns(services.tables), admitted, FOLLOW_MS);
      if (record.status === "running") throw new ApiError("service_unavailable", `Task ${admitted.runId} of this messageId is still running; retry.`, { headers: { "Retry-After": "5" } });
      return taskOf(record, { history: historyOf(prepared.message, record) });
    }
    const { admission } = admitted;
    options.onRun(admission.run.run_id);
    const performed = await performRun(services, admission, { stream: false });
    // The record as the run left it (its settlement and charge).
    const record = finishedRecord(admission.run, await getRun(services.tables, admission.run.run_id).catch(() => null), performed);
    return taskOf(record, { history: historyOf(prepared.message, record) });
  }

  /** SendStreamingMessage: the task, its status, the output as it comes, the final status. */
  async function* executeStream(params: SendMessageRequest): AsyncGenerator<StreamResponse> {
    const { prepared, admitted } = await admit(params, "stream");
    if (admitted.kind === "existing") {
      options.onRun(admitted.runId);
      // Refusals (the first request was refused, or gave up) come before the stream opens.
      const record = await claimedRun(claimedRuns(services.tables), admitted);
      yield firstTask(record, historyOf(prepared.message, record));
      yield* follow(admitted.runId, options.resumeFrom);
      return;
    }
    const { admission } = admitted;
    const run = admission.run;
    options.onRun(run.run_id);
    yield firstTask(run, historyOf(prepared.message, run));
    eventIds.push("working");
    yield { payload: { $case: "statusUpdate", value: { taskId: run.run_id, contextId: contextOf(run), status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined } } };
    const deltas = channel<{ delta: string; offset: number } | { done: true }>();
    let offset = 0;
    // The run goes on if the client goes away: it finishes, is charged as usual, and stays readable.
    const performed = performRun(services, admission, {
      stream: true,
      onDelta: (delta) => {
        if (delta === "") return;
        offset += delta.length;
        deltas.push({ delta, offset });
      },
    }).finally(() => deltas.push({ done: true }));
    let first = true;
    for (;;) {
      const item = await deltas.next();
      if ("done" in item) break;
      eventIds.push(String(item.offset));
      yield artifactUpdate(run, [textPart(item.delta)], !first, false);
      first = false;
    }
    const done = await performed;
    const record = finishedRecord(run, await getRun(services.tables, run.run_id).catch(() => null), done);
    if (done.settlementPending) {
      // The charge is not confirmed yet: no output is released. The stream ends with the task still
      // working; SubscribeToTask (or GetTask) gives its output once the charge lands.
      eventIds.push("pending");
      yield { payload: { $case: "statusUpdate", value: { taskId: run.run_id, contextId: contextOf(run), status: statusOf(record), metadata: taskOf(record).metadata } } };
      return;
    }
    yield* ending(record);
  }

  /** SubscribeToTask: a running task's events, from the stream's resumed offset. */
  async function* resubscribe(taskId: string): AsyncGenerator<StreamResponse> {
    const record = await store.ownRun(taskId);
    if (isTerminal(stateOf(record))) throw unsupportedOperation(`Task ${record.run_id} has ended (${TaskState[stateOf(record)]}): read it with GetTask.`);
    options.onRun(record.run_id);
    eventIds.push("task");
    yield { payload: { $case: "task", value: { ...taskOf(record), artifacts: [] } } };
    yield* follow(record.run_id, options.resumeFrom);
  }

  return { execute, executeStream, resubscribe };
}
