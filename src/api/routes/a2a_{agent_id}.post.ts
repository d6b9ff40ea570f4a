// POST /a2a/{agent_id}: the agent's A2A endpoint (JSON-RPC 2.0 binding, A2A v1.0 and v0.3's method
// names). The SDK's JSON-RPC transports (@a2a-js/sdk: v1.0's, and the v0.3 compatibility layer's) read the
// request and write the answer; the operations are the service's (src/a2a/handler.ts): a task is a run,
// admitted, performed, charged and recorded exactly as by POST /v1/execute. The body is checked here
// first (JSON, the JSON-RPC envelope, the method, the parameters' types), so every malformed request gets
// its JSON-RPC error with the service's code and the request id; so do authentication, rate limits and
// the body rules, which run before the handler (errorFormat "jsonrpc"). Streaming methods answer
// Server-Sent Events, each `data` one JSON-RPC response, each `id` where a resumed stream starts
// (Last-Event-ID: an offset into the output). A caller without a bearer token that activates the A2A
// x402 extension, for an agent sold by x402, pays per task instead (src/a2a/x402-executor.ts; decision 0225);
// one carrying X-Wallet-Signature reads its x402 task with GetTask (src/a2a/x402-read.ts; decision 0257).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { limitExecution } from "../middleware/rate-limit.ts";
import { EXECUTE_ERRORS } from "../execution.ts";
import { parseBoundedJson } from "../../protocols/bounded-json.ts";
import { A2A_ERROR_CODE, A2aError, jsonRpcErrorOf } from "../../a2a/errors.ts";
import { checkRequest, checkVersion, requestIdOf, STREAMING_METHODS } from "../../a2a/params.ts";
import { a2aRequestHandler, recordingErrors } from "../../a2a/handler.ts";
import { a2aPaidRequestHandler } from "../../a2a/x402-executor.ts";
import { activatesX402, extensionsRequested, X402_EXTENSION_URI } from "../../a2a/x402.ts";
import { a2aWalletReadHandler, WALLET_READ_METHODS } from "../../a2a/x402-read.ts";
import { WALLET_SIGNATURE_HEADER, WALLET_SIGNATURE_WINDOW_SECONDS } from "../../erc8004/run-proof.ts";
import { a2aEndpointUrl, apiBaseOf } from "../../a2a/card.ts";
import { enforceRule } from "../middleware/rate-limit.ts";
import { executionKey, executionRule } from "../../adapters/ratelimit/policy.ts";
import type { Principal } from "../../auth/principal.ts";

/** Nesting the endpoint reads in a request (a message's data part is the agent's input). */
const MAX_DEPTH = 64;

/** Where a resumed stream starts: a numeric id is an offset into the output; the ids of the events
 * before any output start it from the beginning; any other id (the output's or the end's) only the end. */
function resumeOffset(lastEventId: string | undefined): number {
  const id = (lastEventId ?? "").trim();
  if (id === "" || id === "task" || id === "working") return 0;
  const offset = Number(id);
  return Number.isSafeInteger(offset) && offset >= 0 ? offset : Number.POSITIVE_INFINITY;
}

export const route = defineRoute({
  method: "post",
  path: "/a2a/{agent_id}",
  operationId: "callA2aAgent",
  tag: "A2A",
  access: "bearer",
  payableBy: "x402-a2a",
  provableBy: "wallet_signature-a2a",
  oauthScope: "tasks:run",
  rateLimit: { rule: "execution", failMode: "closed" }, // a message is a run: it spends balance, compute and gas
  errorFormat: "jsonrpc",
  summary: "A2A endpoint of an agent (JSON-RPC)",
  description:
    "The agent's A2A v1.0 endpoint, JSON-RPC 2.0 binding: `SendMessage` (a text part is the task, a data part the input, checked against the agent's input schema; the answer is the task), `SendStreamingMessage` (Server-Sent Events: the task, its status, the output as an artifact, the final status), `GetTask`, `ListTasks` (the caller's own runs of this agent, newest first, paged), `CancelTask` (a run cannot be stopped: -32002), `SubscribeToTask` (a running task's events; Last-Event-ID resumes); v0.3's `message/send`, `message/stream`, `tasks/get`, `tasks/cancel` and `tasks/resubscribe` too. A task is a run: the same authentication, credential check, sandbox, charge and receipt as POST /v1/execute; the task id is the run id, the message's messageId its Idempotency-Key, and the task's metadata carries the run's id, cost (exact wei, a string), settlement and receipt. Every error is a JSON-RPC error object whose data (google.rpc.ErrorInfo) carries the service's error code and the request id: A2A's codes where A2A names the failure, -32000 for the service's refusals (credential_not_found, credential_expired, insufficient_balance, listing_paused, listing_not_found, rate_limit_exceeded, …). Authentication, rate limits and bodies refused before they are read keep their HTTP status (401, 413, 415, 429, 503); the rest are answered with 200. An agent whose listing is per task in an EIP-3009 token (USDC) is also paid per task by the A2A x402 extension (its card declares it), without Authorization: a SendMessage or SendStreamingMessage that activates it (A2A-Extensions, or X-A2A-Extensions, naming its URI) without payment is answered with a task in input-required whose status message's metadata carries x402.payment.status payment-required and x402.payment.required (POST /v1/execute's PaymentRequired); the next message (the same taskId, or none) carries payment-submitted and the PaymentPayload in x402.payment.payload. The run settles only if it completed, and the task is answered once the payment is in a block, with payment-completed and x402.payment.receipts (success, transaction, network, payer). A refused payment is a failed task with payment-failed, x402.payment.error and the reason; nothing runs. A malformed payload is -32602. " +
    `A task whose settlement is not confirmed when it is answered stays working with payment-verified (output withheld); its payer, without Authorization, reads it later with GetTask (v0.3 tasks/get) and X-Wallet-Signature: <unix_timestamp>:<signature>, the run's wallet's EIP-191 signature of "run-read:<task id>:<unix_timestamp>" within ${WALLET_SIGNATURE_WINDOW_SECONDS} s of the service's clock: the task as the paying message would have answered it (payment-completed and x402.payment.receipts once the payment is in a block). A malformed or stale signature is 401; another wallet's task, one not paid by x402, or a signature of another message is -32001 (task not found). Every other method needs a bearer token.`,
  parameters: [
    { name: "A2A-Version", in: "header", required: false, description: "The protocol version the client speaks: 1.0, or 0.3 (an empty header is 0.3, as A2A says). Anything else: -32009.", schema: { type: "string" } },
    { name: "Last-Event-ID", in: "header", required: false, description: "Resume a stream (SubscribeToTask, or SendStreamingMessage with the same messageId): the id of the last event received.", schema: { type: "string" } },
    { name: "X-Wallet-Signature", in: "header", required: false, description: "GetTask (v0.3 tasks/get) of a task paid by x402, instead of Authorization: <unix_timestamp>:<0x signature> by the task's payer of run-read:<task id>:<unix_timestamp>", schema: { type: "string" } },
  ],
  request: {
    params: z.object({ agent_id: z.string().openapi({ description: "The agent id (<name>-<8 hex>), the listing id or the on-chain id" }) }),
    // The messages are A2A's JSON-RPC (a2a-protocol.org), read by the SDK's transports, not by a schema here.
    body: { required: true, content: { "application/json": { schema: { type: "object", description: "A JSON-RPC 2.0 request of A2A v1.0 (or v0.3)" } } } },
  },
  responses: {
    200: {
      description: "A JSON-RPC response (a result, or an error object), or for a streaming method an event stream of JSON-RPC responses",
      content: { "application/json": { schema: { type: "object" } }, "text/event-stream": { schema: { type: "string" } } },
    },
  },
  // A task is a run: POST /v1/execute's refusals, and a task that is not the caller's (not_found). The
  // protocol's errors are answered with 200, the service's code in the error's ErrorInfo.
  errors: { ...EXECUTE_ERRORS, 404: [...EXECUTE_ERRORS[404], "not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const jsonRpc = c.get("jsonRpc")!;
    // Read here, bounded by the app's body limit and in nesting, before anything parses it further.
    const parsed = parseBoundedJson(await c.req.text(), { maxDepth: MAX_DEPTH, maxChars: services.config.MAX_BODY_BYTES });
    if (!parsed.ok) {
      if (parsed.reason === "invalid_json") throw new A2aError(A2A_ERROR_CODE.PARSE_ERROR, "invalid_request", "Invalid JSON payload.");
      throw new A2aError(A2A_ERROR_CODE.INVALID_REQUEST, "invalid_request", `The request nests deeper than ${MAX_DEPTH} levels of arrays and objects.`);
    }
    jsonRpc.id = requestIdOf(parsed.value);
    const request = checkRequest(parsed.value);
    checkVersion(c.req.header("a2a-version"));
    c.header("A2A-Version", request.legacy ? "0.3" : "1.0");

    const eventIds: string[] = [];
    const recorded: { error?: unknown } = {};
    const agentId = c.req.valid("param").agent_id;
    const principal = c.get("principal") as Principal | undefined;
    // Without a principal the authentication let through only a payer's message (the x402 extension) or
    // a GetTask proven by X-Wallet-Signature.
    const walletProof = !principal && WALLET_READ_METHODS.has(request.method) ? c.req.header(WALLET_SIGNATURE_HEADER) : undefined;
    if (!principal && (walletProof === undefined || activatesX402(extensionsRequested(c.req.header())))) c.header(request.legacy ? "X-A2A-Extensions" : "A2A-Extensions", X402_EXTENSION_URI); // the extension this answer uses
    const handler = recordingErrors(
      walletProof !== undefined ? a2aWalletReadHandler({ services, agentId, proof: walletProof }) :
      !principal ? a2aPaidRequestHandler(
        {
          services,
          agentId,
          resourceUrl: a2aEndpointUrl(apiBaseOf(services), agentId),
          rateLimit: async (listingId, payer) => {
            await enforceRule(c, services.rateLimiter, executionKey(listingId, payer), executionRule(), "closed");
          },
          onRun: (runId) => c.set("runId", runId),
        },
        eventIds,
      ) : a2aRequestHandler(
        {
          services,
          principal,
          agentId,
          rateLimit: (listingId) => limitExecution(c, listingId),
          resumeFrom: resumeOffset(c.req.header("last-event-id")),
          onRun: (runId) => c.set("runId", runId),
        },
        eventIds,
      ),
      recorded,
    );
    const context = new ServerCallContext({ requestedVersion: request.legacy ? "0.3" : "1.0" });
    const transport = request.legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
    const body = { jsonrpc: "2.0", id: jsonRpc.id, method: request.method, params: request.params };
    // An error the transport wrote: the one the operation threw (rendered with the service's code), or
    // the transport's own.
    const failure = (envelope: { error?: unknown }) => {
      if (recorded.error !== undefined) return recorded.error;
      const error = envelope.error as { code?: number; message?: string } | undefined;
      return new A2aError(error?.code ?? A2A_ERROR_CODE.INTERNAL_ERROR, "invalid_request", error?.message ?? "The request failed.");
    };
    const answer = await transport.handle(body, context);

    if (!STREAMING_METHODS.has(request.method) || !(Symbol.asyncIterator in answer)) {
      const single = answer as { error?: unknown; result?: unknown };
      if (single.error !== undefined) throw failure(single);
      return answerAs(route, c.json(single, 200));
    }
    const events = answer as AsyncGenerator<{ jsonrpc: string; id: unknown; result?: unknown; error?: unknown }>;
    // Every refusal (the credential, the balance, admission) comes before the stream opens: the first
    // event is read first, and a failure is a JSON-RPC error, not an event stream.
    let first: IteratorResult<{ result?: unknown; error?: unknown }>;
    try {
      first = await events.next();
    } catch (error) {
      throw recorded.error ?? error;
    }
    if (first.done) throw new A2aError(A2A_ERROR_CODE.INTERNAL_ERROR, "internal_error", "The stream ended before its first event.");
    c.header("Cache-Control", "no-cache");
    c.header("X-Accel-Buffering", "no");
    return answerAs(route, streamSSE(c, async (stream) => {
      let index = 0;
      const send = async (event: unknown) => {
        const id = eventIds[index++];
        // A client that went away stops receiving; the run it started still finishes and is charged as
        // usual, so the events are still drained.
        if (!stream.aborted) await stream.writeSSE({ data: JSON.stringify(event), ...(id ? { id } : {}) }).catch(() => undefined);
      };
      await send(first.value);
      try {
        for await (const event of events) await send(event);
      } catch (error) {
        const rendered = jsonRpcErrorOf(recorded.error ?? error, c.get("requestId"), services.config.SERVICE_NAME);
        if (!stream.aborted) await stream.writeSSE({ data: JSON.stringify({ jsonrpc: "2.0", id: jsonRpc.id, error: rendered.error }) }).catch(() => undefined);
      }
    }));
  });
}
