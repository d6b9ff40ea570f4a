// The A2A handler of a request without a bearer token: every method refused as unauthenticated (the
// message saying what it may do instead), but for the ones the caller's proof opens, which the caller
// overrides (an x402 payment: SendMessage and SendStreamingMessage, x402-executor.ts; a wallet's
// signature: GetTask, x402-read.ts). Its agent card names only the streaming capability, which the SDK's
// v0.3 transport reads before a streaming method.
import { AgentCard, type StreamResponse } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { ApiError } from "../errors.ts";

/** A stream that ends, before any event, with a 401 saying `message`. */
function refusedStream(message: string): AsyncGenerator<StreamResponse, void, undefined> {
  return (async function* () {
    yield* [] as StreamResponse[];
    throw new ApiError("unauthorized", message);
  })();
}

/** Every method refused with 401 `refusal` (SubscribeToTask with its own message); streams end likewise. */
export function refusingHandler(refusal: string, streamRefusal = refusal): A2ARequestHandler {
  const refuse = () => Promise.reject(new ApiError("unauthorized", refusal));
  return {
    getAgentCard: async () => AgentCard.fromJSON({ capabilities: { streaming: true } }),
    getAuthenticatedExtendedAgentCard: refuse,
    createTaskPushNotificationConfig: refuse,
    getTaskPushNotificationConfig: refuse,
    listTaskPushNotificationConfigs: refuse,
    deleteTaskPushNotificationConfig: refuse,
    sendMessage: refuse,
    sendMessageStream: () => refusedStream(streamRefusal),
    getTask: refuse,
    listTasks: refuse,
    cancelTask: refuse,
    resubscribe: () => refusedStream("Missing Authorization header: SubscribeToTask needs Authorization: Bearer <API key, JWT or access token>."),
  };
}
