// POST /v1/runs/{run_id}/feedback: the renter's on-chain feedback for a completed run of theirs: the
// feedback file (with the run's receipt as proof) and the unsigned giveFeedback transaction.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { MAX_TAG_CHARS, MAX_TEXT_CHARS, MAX_VALUE, MAX_VALUE_DECIMALS, MIN_VALUE, prepareFeedback, provenRunWallet } from "../../erc8004/feedback.ts";
import { WALLET_SIGNATURE_HEADER, WALLET_SIGNATURE_WINDOW_SECONDS } from "../../erc8004/run-proof.ts";
import type { Principal } from "../../auth/principal.ts";
import { RATING_TAG } from "../../erc8004/files.ts";
import { defineRoute } from "../route.ts";
import { UnsignedTransactionSchema } from "../schemas/erc8004.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/runs/{run_id}/feedback",
  operationId: "prepareRunFeedback",
  tag: "Runs",
  access: "bearer",
  provableBy: "wallet_signature",
  rateLimit: { rule: "default", failMode: "closed" }, // writes a file to permanent storage
  summary: "Prepare on-chain feedback for a run",
  description:
    "For the renter who ran it, once the run is completed and its receipt is in the on-chain run log: writes the ERC-8004 feedback file (content-addressed, ipfs://<cid>, served at GET /v1/metadata/<cid>) and answers the unsigned `giveFeedback(agentId, value, valueDecimals, tag1, \"\", endpoint, feedbackURI, feedbackHash)` for the renter's wallet to send to the Reputation Registry. " +
    "The file carries the ERC's fields (agentRegistry, agentId, clientAddress, createdAt, value, valueDecimals, tag1, endpoint), the text, proofOfPayment (the run's per-query charge, or the purchase of the renter's access) and runReceipt: the run's receipt fields, batch index, Merkle proof, root, leaf and logRuns transaction. feedback_hash is keccak256 of the file's bytes. " +
    `Once the wallet has sent it, the feedback counts toward the listing's rating (score/20) if it is a rating (tag1 "${RATING_TAG}"), the file's receipt verifies with the marketplace's verifyRunReceipt for the sending wallet and this listing, and no earlier feedback counts for the run; anything else is shown apart as unverified (GET /v1/listings/{id}/reputation). ` +
    "Before the receipt is logged (every few seconds locally, every minute in the cloud) the answer is 409 receipt_pending with Retry-After. Another wallet's run is 404 not_found; a failed run 403 feedback_not_allowed; a run whose feedback already counts 409 feedback_exists. Unknown fields are refused. " +
    `Without a bearer token (the payer of an x402 run holds none), the run's wallet proves itself with X-Wallet-Signature: <unix_timestamp>:<signature>, its EIP-191 signature of "run-feedback:<run_id>:<unix_timestamp>", within ${WALLET_SIGNATURE_WINDOW_SECONDS} s of the service's clock; a malformed or stale one is 401, another wallet's 404 not_found.`,
  request: {
    params: z.object({ run_id: z.string().max(100) }),
    headers: z.object({ [WALLET_SIGNATURE_HEADER]: z.string().max(4200).optional().openapi({ description: "Instead of Authorization: <unix_timestamp>:<0x signature> by the run's wallet of run-feedback:<run_id>:<unix_timestamp>" }) }),
    body: {
      content: {
        "application/json": {
          schema: z
            .object({
              value: z.number().openapi({ description: `The score, ${MIN_VALUE} to ${MAX_VALUE}, at most ${MAX_VALUE_DECIMALS} decimals (sent on-chain as value and valueDecimals: 87.5 is 875 with 1 decimal)` }),
              tag1: z.string().optional().openapi({ description: `1 to ${MAX_TAG_CHARS} characters; default "${RATING_TAG}" (a rating: only ratings count toward the listing's rating)` }),
              text: z.string().nullable().optional().openapi({ description: `A comment for the file: plain text, at most ${MAX_TEXT_CHARS} characters after trimming` }),
            })
            .strict()
            .openapi("FeedbackInput"),
        },
      },
      required: true,
    },
  },
  responses: {
    200: {
      description: "The feedback file as stored and the transaction to send",
      content: {
        "application/json": {
          schema: z
            .object({
              run_id: z.string(),
              listing_id: z.string(),
              agent_id: z.string().openapi({ description: "The listing's ERC-8004 agent id (decimal string)" }),
              agent_registry: z.string(),
              feedback_uri: z.string().openapi({ description: "ipfs://<cid> of the feedback file" }),
              feedback_hash: z.string().openapi({ description: "keccak256 of the file's bytes" }),
              feedback_file: z.record(z.string(), z.unknown()).openapi({ description: "The file's content" }),
              transaction: UnsignedTransactionSchema,
            })
            .openapi("RunFeedback"),
        },
      },
    },
  },
  errors: {
    400: ["invalid_request"],
    403: ["feedback_not_allowed"],
    404: ["not_found"],
    409: ["receipt_pending", "agent_not_registered", "feedback_exists"],
    503: ["service_unavailable"],
  },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const runId = c.req.valid("param").run_id;
    // No principal: the authentication let the request through on its X-Wallet-Signature (route.ts provableBy).
    const principal = c.get("principal") as Principal | undefined;
    const wallet = principal ? principal.wallet : await provenRunWallet(services, runId, c.req.header(WALLET_SIGNATURE_HEADER) ?? "");
    return c.json(await prepareFeedback(services, wallet, runId, c.req.valid("json"), apiBaseOf(services)), 200);
  });
}
