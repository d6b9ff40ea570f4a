// POST /v1/mcp/x402: the remote MCP endpoint for payers that hold only a wallet (decision 0230). It takes
// no credential: its tools are the listings sold per run by x402 (per-task, priced in an EIP-3009 token;
// src/mcp/payable-tools.ts) and `run_agent` for any of them by id, and it runs a call only when the call
// pays, by x402's MCP transport (src/mcp/x402-transport.ts): a call without `_meta["x402/payment"]` gets a
// tool result carrying the PaymentRequired, one with a payment is admitted by admitPaidRun exactly as
// POST /v1/execute admits a PAYMENT-SIGNATURE (verified, one run per authorization, the execution rule per
// listing and payer), runs, and its payment goes to the settler's batch; the output is answered only once
// the payment is in a block, with `_meta["x402/payment-response"]`. A failed run is never settled. POST
// /v1/mcp keeps its bearer authentication and its 401 discovery for OAuth clients unchanged: a request
// without a token there cannot be told from an OAuth client's first try, so the payers' door is its own.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { SettleResponse } from "@x402/core/types";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { mcpMessagesRoute, serveMcpRequest } from "../mcp.ts";
import { performRun } from "../../execution/perform.ts";
import { enforceRule } from "../middleware/rate-limit.ts";
import { executionKey, executionRule } from "../../adapters/ratelimit/policy.ts";
import { runFinished, runStarted } from "../../observability/run-metrics.ts";
import { admitPaidRun, x402OfferOf } from "../../x402/admission.ts";
import { paymentRequiredError } from "../../x402/offer.ts";
import type { RentedAgentEntry } from "../../mcp/agent-tools.ts";
import { payableAgentEntries } from "../../mcp/payable-tools.ts";
import { finishedRun, heartbeat } from "../../mcp/endpoint.ts";
import { paymentOfCall, paymentRequiredOf, paymentRequiredResult, paymentResponseMeta, PaymentSettlementFailed, settlementFailedResult, toolResourceUrl } from "../../mcp/x402-transport.ts";

export const route = mcpMessagesRoute({
  path: "/v1/mcp/x402",
  operationId: "callPaidMcp",
  access: "public",
  summary: "Remote MCP endpoint paid per call by x402 (Streamable HTTP)",
  description:
    "The Model Context Protocol over Streamable HTTP, stateless, for payers with only a wallet: no Authorization. Tools: run_agent (agent_id, task, input) and one per listing sold per run by x402 (a per-task listing priced in an EIP-3009 token such as USDC), with the agent's own schemas. Payment follows x402 v2's MCP transport: a tools/call without `_meta[\"x402/payment\"]` is answered with a tool result (isError) carrying the PaymentRequired (x402Version 2, accepts) as structuredContent (for a tool without an output schema) and, always, as content[0].text, JSON of {\"x402/error\": {code: 402, message, data}}; the retry with the PaymentPayload in `_meta[\"x402/payment\"]` is verified as PAYMENT-SIGNATURE is on POST /v1/execute, runs the task, settles the payment only if the run completed, and answers once the payment is in a block with the output and `_meta[\"x402/payment-response\"]` (success, transaction, network, payer) beside `_meta.run`. A refused payment is the PaymentRequired again, its `error` the reason; a malformed one is a tool error invalid_request; nothing runs. Callers with an API key, a JWT or an OAuth token use POST /v1/mcp.",
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, (c) =>
    serveMcpRequest(c, () => {
      const services = c.get("services");
      const requestId = c.get("requestId");
      let entries: Promise<RentedAgentEntry[]> | undefined;
      return {
        tools: () => (entries ??= payableAgentEntries(services)),
        errorResult(error, entry) {
          // A tool that declares an output schema gets the offer as text only (x402-transport.ts).
          const structured = entry?.schemas.outputSchema === undefined;
          if (error instanceof PaymentSettlementFailed) return settlementFailedResult(error, { structured, requestId });
          const required = paymentRequiredOf(error);
          return required ? paymentRequiredResult(required, (error as ApiError).message, { structured, requestId }) : undefined;
        },
        async run(call) {
          // Progress carries no output here: a paid run's output is released only once its payment is in a block.
          const beat = heartbeat(call.progress, services.config.MCP_PROGRESS_INTERVAL_MS);
          try {
            const offer = await x402OfferOf(services, call.request.agent_id);
            if (!offer) throw new ApiError("unauthorized", `Listing ${call.request.agent_id} is not sold per run by x402 (only published per-task listings priced in an EIP-3009 token are): rent it and call it on POST /v1/mcp with Authorization: Bearer <API key, JWT or access token>.`);
            const resourceUrl = toolResourceUrl(call.toolName);
            const header = paymentOfCall(call.meta);
            if (header === undefined) {
              throw paymentRequiredError(offer, resourceUrl, "payment_required", `This tool is paid per run by x402: sign an authorization for an offer of accepts and call again with the PaymentPayload in _meta["x402/payment"].`);
            }
            const paid = await admitPaidRun(services, offer, call.request, {
              header,
              resourceUrl,
              delivery: "sync",
              rateLimit: async (listingId, payer) => {
                await enforceRule(c, services.rateLimiter, executionKey(listingId, payer), executionRule(), "closed");
              },
            });
            c.set("runId", paid.admission.run.run_id);
            runStarted(services.metrics, paid.admission, c.get("receivedAt"));
            const result = await performRun(services, paid.admission, { stream: false, payment: paid.payment });
            runFinished(services, result.response, result.settlementPending);
            const settlement: SettleResponse = { success: true, transaction: result.settlementTx ?? "", network: paid.payment.network as SettleResponse["network"], payer: paid.payment.payer };
            if (result.response.error?.code === "settlement_refused") throw new PaymentSettlementFailed(result.response, offer, resourceUrl, { ...settlement, success: false, errorReason: "settlement_refused" });
            return { ...finishedRun(result), ...(result.settlementTx ? { meta: paymentResponseMeta(settlement) } : {}) };
          } finally {
            beat.stop();
          }
        },
      };
    }),
  );
}
