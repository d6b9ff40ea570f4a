// The A2A tasks of one agent for one caller, backed by the run records: the SDK's TaskStore (load,
// list), where a task is a run. A task's state is written by execution as its run goes (admission,
// performRun, the settlement), never through this store, so `save` stores nothing. Another wallet's or
// another agent's run is as unknown as a missing one.
import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from "@a2a-js/sdk";
import type { TaskStore } from "@a2a-js/sdk/server";
import type { Services } from "./services.ts";
import { resolveAgentId } from "../execution/access.ts";
import { RUN_ID, type RunRecord } from "../execution/runs/run.ts";
import { countRenterRuns, getRun, getRuns, listRenterRuns } from "../execution/runs/run.store.ts";
import { A2A_ERROR_CODE, A2aError, invalidParams, taskNotFound } from "./errors.ts";
import { taskOf } from "./tasks.ts";

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

export interface RunTaskStore extends TaskStore {
  /** The agent's listing, as its on-chain id (resolved once). */
  listing(): Promise<`0x${string}`>;
  /** The caller's run of this agent, or TaskNotFound. */
  ownRun(taskId: string): Promise<RunRecord>;
  /** GetTask: the caller's task, or TaskNotFound (where the SDK's `load` answers undefined). */
  task(taskId: string): Promise<Task>;
  /** ListTasks: the caller's tasks of this agent. */
  tasks(params: ListTasksRequest): Promise<ListTasksResponse>;
}

/** The task store of `agentId` for `wallet`. */
export function createRunTaskStore(services: Services, agentId: string, wallet: string): RunTaskStore {
  let onChainId: Promise<`0x${string}`> | undefined;
  const listing = () => (onChainId ??= resolveAgentId(services, agentId));

  async function ownRun(taskId: string): Promise<RunRecord> {
    const record = RUN_ID.test(taskId) ? await getRun(services.tables, taskId) : null;
    if (!record || record.wallet !== wallet || record.on_chain_id !== (await listing())) throw taskNotFound(taskId);
    return record;
  }

  /** The caller's runs of this agent, newest first, those the filters choose, a page at a time. */
  async function list(params: ListTasksRequest): Promise<ListTasksResponse> {
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
  }

  const task = async (taskId: string) => taskOf(await ownRun(taskId));
  return {
    listing,
    ownRun,
    task,
    tasks: list,
    load: (taskId) => task(taskId).catch((error: unknown) => (error instanceof A2aError && error.rpcCode === A2A_ERROR_CODE.TASK_NOT_FOUND ? undefined : Promise.reject(error))),
    list: (params) => list(params),
    // A task is its run: execution writes it.
    save: async () => undefined,
  };
}
