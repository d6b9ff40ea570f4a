// The A2A operations of one agent for one caller, as the SDK's JSON-RPC transports call them
// (A2ARequestHandler): a task is a run. The executor (executor.ts) runs messages; the run-backed task
// store (task-store.ts) answers GetTask and ListTasks. Runs cannot be stopped, so CancelTask answers
// not-cancelable; push notifications and the extended card are not offered.
import { AgentCard, TaskState, type StreamResponse } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { A2A_ERROR_CODE, A2aError, unsupportedOperation } from "./errors.ts";
import { isTerminal, stateOf } from "./tasks.ts";
import { createRunExecutor, type A2aCallOptions, type EventIds } from "./executor.ts";
import { createRunTaskStore } from "./task-store.ts";

export type { A2aCallOptions, EventIds } from "./executor.ts";

const notOffered = (what: string) => () =>
  Promise.reject(new A2aError(A2A_ERROR_CODE.PUSH_NOTIFICATION_NOT_SUPPORTED, "invalid_request", `${what}: push notifications are not offered (the card's capabilities say so). Follow a task with SendStreamingMessage, SubscribeToTask or GetTask.`));

/** The handler for one request. `eventIds` receives the SSE id of each streamed event, in order. */
export function a2aRequestHandler(options: A2aCallOptions, eventIds: EventIds): A2ARequestHandler {
  const store = createRunTaskStore(options.services, options.agentId, options.principal.wallet.toLowerCase());
  const executor = createRunExecutor(options, store, eventIds);
  return {
    // Read by the v0.3 transport before a streaming method: the capability it checks.
    getAgentCard: async () => AgentCard.fromJSON({ capabilities: { streaming: true } }),
    getAuthenticatedExtendedAgentCard: () => Promise.reject(unsupportedOperation("No extended agent card: the public card says everything (capabilities.extendedAgentCard is false).")),
    createTaskPushNotificationConfig: notOffered("CreateTaskPushNotificationConfig"),
    getTaskPushNotificationConfig: notOffered("GetTaskPushNotificationConfig"),
    listTaskPushNotificationConfigs: notOffered("ListTaskPushNotificationConfigs"),
    deleteTaskPushNotificationConfig: notOffered("DeleteTaskPushNotificationConfig"),
    sendMessage: (params) => executor.execute(params),
    sendMessageStream: (params) => executor.executeStream(params),
    getTask: (params) => store.task(params.id),
    listTasks: (params) => store.tasks(params),
    async cancelTask(params) {
      const record = await store.ownRun(params.id);
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
    resubscribe: (params) => executor.resubscribe(params.id),
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
