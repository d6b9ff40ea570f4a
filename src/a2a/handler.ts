// The A2A operations of one agent for one caller, as the SDK's JSON-RPC transports call them
// (A2ARequestHandler): a task is a run. SendMessage and SendStreamingMessage go through the same
// admission (the listing, the credential read live from the chain, the execution rate rule, the
// per-query reservation, the listing's concurrency) and the same performRun (sandbox, output checks,
// charge, record, receipt) as POST /v1/execute and /v1/execute/stream; the message's messageId is the
// run's Idempotency-Key. The rest reads the run records: GetTask, ListTasks (the caller's runs of this
// agent), SubscribeToTask (a running task's events, resumable by offset). Runs cannot be stopped, so
// CancelTask answers not-cancelable; push notifications and the extended card are not offered.
import { createHash } from "node:crypto";
import { AgentCard, TaskState, type Message, type SendMessageRequest, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { Services } from "./services.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../errors.ts";
import { admitRun, type AdmissionResult } from "../execution/admission.ts";
import { resolveAgentId } from "../execution/access.ts";
import { performRun } from "../execution/perform.ts";
import { claimedRun, requestHash, waitForRun } from "../execution/idempotency/protocol.ts";
import { RUN_ID, releasedText, type RunRecord } from "../execution/runs/run.ts";
import { claimedRuns, countRenterRuns, getRun, getRuns, listRenterRuns } from "../execution/runs/run.store.ts";
import { A2A_ERROR_CODE, A2aError, invalidParams, taskNotFound, unsupportedOperation } from "./errors.ts";
import { executeRequestOf } from "./params.ts";
import { contextOf, isTerminal, outputArtifact, stateOf, statusOf, taskOf, textPart } from "./tasks.ts";

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

/** The page token of ListTasks: the sort key of the last entry of the previous page, opaque to clients. */
function encodePageToken(after: string): string {
  return Buffer.from(JSON.stringify({ after }), "utf8").toString("base64url");
}

function decodePageToken(token: string): string {
  try {
    const { after } = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { after?: unknown };
    if (typeof after === "string" && /^\d{4}-\d{2}-\d{2}T[^#]+#run_[0-9a-f]{32}$/.test(after)) return after;
  } catch {
    // refused below
  }
  throw invalidParams("pageToken is not a token this endpoint issued.", { field: "pageToken" });
}

/** The handler for one request. `eventIds` receives the SSE id of each streamed event, in order. */
export function a2aRequestHandler(options: A2aCallOptions, eventIds: EventIds): A2ARequestHandler {
  const { services, principal } = options;
  const wallet = principal.wallet.toLowerCase();
  let onChainId: Promise<`0x${string}`> | undefined;
  const listing = () => (onChainId ??= resolveAgentId(services, options.agentId));

  /** The caller's run of this agent, or TaskNotFound (another wallet's or another agent's run is as
   * unknown as a missing one). */
  async function ownRun(taskId: string): Promise<RunRecord> {
    const record = RUN_ID.test(taskId) ? await getRun(services.tables, taskId) : null;
    if (!record || record.wallet !== wallet || record.on_chain_id !== (await listing())) throw taskNotFound(taskId);
    return record;
  }

  /** The checks of a message before anything runs, and its run's request. */
  async function prepare(params: SendMessageRequest) {
    const message = params.message;
    if (!message) throw invalidParams("params.message is required.", { field: "message" });
    if (message.role !== 1 /* ROLE_USER */) throw invalidParams("message.role must be ROLE_USER (\"user\" in v0.3).", { field: "message.role" });
    if (message.taskId) {
      // A run takes one message: a task, once started, takes no other.
      await ownRun(message.taskId);
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
    const bodyHash = requestHash("a2a", { ...request, agent: await listing(), context: contextId ?? null });
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

  const notOffered = (what: string) => () => Promise.reject(new A2aError(A2A_ERROR_CODE.PUSH_NOTIFICATION_NOT_SUPPORTED, "invalid_request", `${what}: push notifications are not offered (the card's capabilities say so). Follow a task with SendStreamingMessage, SubscribeToTask or GetTask.`));

  return {
    // Read by the v0.3 transport before a streaming method: the capability it checks.
    getAgentCard: async () => AgentCard.fromJSON({ capabilities: { streaming: true } }),
    getAuthenticatedExtendedAgentCard: () => Promise.reject(unsupportedOperation("No extended agent card: the public card says everything (capabilities.extendedAgentCard is false).")),
    createTaskPushNotificationConfig: notOffered("CreateTaskPushNotificationConfig"),
    getTaskPushNotificationConfig: notOffered("GetTaskPushNotificationConfig"),
    listTaskPushNotificationConfigs: notOffered("ListTaskPushNotificationConfigs"),
    deleteTaskPushNotificationConfig: notOffered("DeleteTaskPushNotificationConfig"),

    async sendMessage(params): Promise<Task> {
      const { prepared, admitted } = await admit(params, "sync");
      if (admitted.kind === "existing") {
        options.onRun(admitted.runId);
        const record = await waitForRun(claimedRuns(services.tables), admitted, FOLLOW_MS);
        if (record.status === "running") throw new ApiError("service_unavailable", `Task ${admitted.runId} of this messageId is still running; retry.`, { headers: { "Retry-After": "5" } });
        return taskOf(record, { history: historyOf(prepared.message, record) });
      }
      const { admission } = admitted;
      options.onRun(admission.run.run_id);
      const { response, settlementPending } = await performRun(services, admission, { stream: false });
      // The record as the run left it (its settlement and charge); what performRun answered where the
      // record's last write did not land.
      const stored = await getRun(services.tables, admission.run.run_id).catch(() => null);
      const record: RunRecord =
        stored && stored.status !== "running"
          ? stored
          : { ...admission.run, status: response.status, output: response.output, cost_wei: response.cost_wei.toString(), duration_ms: response.duration_ms, settlement: settlementPending ? "pending" : "none", ...(response.error ? { error: response.error } : {}) };
      return taskOf(record, { history: historyOf(prepared.message, record) });
    },

    async *sendMessageStream(params) {
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
      const { response, settlementPending } = await performed;
      const stored = await getRun(services.tables, run.run_id).catch(() => null);
      const record: RunRecord =
        stored && stored.status !== "running"
          ? stored
          : { ...run, status: response.status, output: response.output, cost_wei: response.cost_wei.toString(), duration_ms: response.duration_ms, settlement: settlementPending ? "pending" : "none", ...(response.error ? { error: response.error } : {}) };
      if (settlementPending) {
        // The charge is not confirmed yet: no output is released. The stream ends with the task still
        // working; SubscribeToTask (or GetTask) gives its output once the charge lands.
        eventIds.push("pending");
        yield { payload: { $case: "statusUpdate", value: { taskId: run.run_id, contextId: contextOf(run), status: statusOf(record), metadata: taskOf(record).metadata } } };
        return;
      }
      yield* ending(record);
    },

    async getTask(params) {
      return taskOf(await ownRun(params.id));
    },

    async listTasks(params) {
      const onChain = await listing();
      const pageSize = params.pageSize ?? 50;
      const status = params.status ?? TaskState.TASK_STATE_UNSPECIFIED;
      if (status === TaskState.UNRECOGNIZED) throw invalidParams("status must be a TaskState name (TASK_STATE_WORKING, TASK_STATE_COMPLETED, TASK_STATE_FAILED, …).", { field: "status" });
      const after = params.pageToken ? decodePageToken(params.pageToken) : undefined;
      const since = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
      const contextId = params.contextId || undefined;
      const tasks: Task[] = [];
      let cursor = after;
      let next: string | null = null;
      // Reads pages of the caller's runs of this agent, newest first, keeping those the filters choose,
      // until the page is full or the runs end (at most 10 reads of the index per call).
      for (let reads = 0; reads < 10 && tasks.length < pageSize; reads++) {
        const page = await listRenterRuns(services.tables, onChain, wallet, { limit: pageSize - tasks.length, ...(cursor ? { after: cursor } : {}), ...(contextId ? { contextId } : {}) });
        const records = await getRuns(services.tables, page.entries.map((entry) => entry.run_id));
        for (const entry of page.entries) {
          const record = records.get(entry.run_id);
          if (!record || record.wallet !== wallet) continue;
          const task = taskOf(record, { artifacts: params.includeArtifacts === true });
          if (status !== TaskState.TASK_STATE_UNSPECIFIED && task.status?.state !== status) continue;
          if (since !== undefined && Date.parse(task.status?.timestamp ?? "") < since) continue;
          tasks.push(task);
        }
        next = page.next;
        cursor = page.next ?? undefined;
        if (!page.next) break;
      }
      const totalSize = await countRenterRuns(services.tables, onChain, wallet, contextId ? { contextId } : {});
      return { tasks, nextPageToken: next ? encodePageToken(next) : "", pageSize, totalSize };
    },

    async cancelTask(params) {
      const record = await ownRun(params.id);
      const state = stateOf(record);
      throw new A2aError(
        A2A_ERROR_CODE.TASK_NOT_CANCELABLE,
        "invalid_request",
        isTerminal(state)
          ? `Task ${record.run_id} has already ended (${TaskState[state]}).`
          : `Task ${record.run_id} cannot be canceled: a run, once admitted, runs to its end (at most its timeout) and is charged as usual. Follow it with SubscribeToTask or GetTask.`,
        { task_id: record.run_id },
      );
    },

    async *resubscribe(params) {
      const record = await ownRun(params.id);
      if (isTerminal(stateOf(record))) throw unsupportedOperation(`Task ${record.run_id} has ended (${TaskState[stateOf(record)]}): read it with GetTask.`);
      options.onRun(record.run_id);
      eventIds.push("task");
      yield { payload: { $case: "task", value: { ...taskOf(record), artifacts: [] } } };
      yield* follow(record.run_id, options.resumeFrom);
    },
  };
}

/**
 * The handler with every error an operation throws kept in `recorded` before the SDK's transport turns it
 * into its own error object (which knows neither the service's code nor the request id): the route
 * renders the kept error instead.
 */
export function recordingErrors(handler: A2ARequestHandler, recorded: { error?: unknown }): A2ARequestHandler {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(handler) as [string, (...args: unknown[]) => unknown][]) {
    wrapped[name] = (...args: unknown[]) => {
      const result = method(...args);
      if (result && typeof (result as AsyncGenerator)[Symbol.asyncIterator] === "function") {
        const generator = result as AsyncGenerator<StreamResponse>;
        return (async function* () {
          try {
            yield* generator;
          } catch (error) {
            recorded.error = error;
            throw error;
          }
        })();
      }
      return (result as Promise<unknown>).catch((error: unknown) => {
        recorded.error = error;
        throw error;
      });
    };
  }
  return wrapped as unknown as A2ARequestHandler;
}
