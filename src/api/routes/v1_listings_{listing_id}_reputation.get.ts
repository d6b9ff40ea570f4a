// GET /v1/listings/{listing_id}/reputation: a listing's on-chain reputation, verified and not.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { getReputation, REPUTATION_PAGE_DEFAULT, REPUTATION_PAGE_MAX } from "../../erc8004/reputation.ts";
import { defineRoute } from "../route.ts";
import { FEEDBACK_REASONS } from "@agent-rental/core/vocabulary";

const FeedbackSchema = z
  .object({
    agent_id: z.string().openapi({ description: "The agent it was given to (decimal): the listing's current agent or one it was linked to before. With client and feedback_index it names the feedback on-chain; the SDK's verifyReputation reads every agent listed here" }),
    client: z.string().openapi({ description: "The wallet that sent giveFeedback, lower-case" }),
    feedback_index: z.string().openapi({ description: "The client's feedback index for the agent (from 1)" }),
    value: z.number().openapi({ description: "value / 10^value_decimals" }),
    value_decimals: z.number().int(),
    tag1: z.string(),
    tag2: z.string(),
    endpoint: z.string(),
    feedback_uri: z.string(),
    feedback_hash: z.string(),
    tx_hash: z.string(),
    block_number: z.string(),
    revoked: z.boolean(),
    verified: z.boolean().openapi({ description: "Whether it counts toward the listing's rating" }),
    reason: z
      .string()
      .nullable()
      .openapi({
        description: `Why it does not count: ${FEEDBACK_REASONS.join(", ")}; null when it counts`,
      }),
    run_id: z.string().nullable(),
    text: z.string().nullable(),
    receipt: z.record(z.string(), z.unknown()).nullable().openapi({ description: "A verified feedback's run receipt as its file carries it (marketplace, batchIndex, receipt fields, proof, root, leaf, txHash)" }),
  })
  .openapi("Feedback");

export const route = defineRoute({
  method: "get",
  path: "/v1/listings/{listing_id}/reputation",
  operationId: "getListingReputation",
  tag: "Listings",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get a listing's reputation",
  description:
    "A published listing's ERC-8004 reputation: rating and review_count (the listing's own: its verified feedback, score/20 averaged), unverified_count (feedback that does not count), before_on_chain (the renters' off-chain ratings, GET /v1/listings/{listing_id}/ratings, never averaged in), and the feedback of every agent it was ever linked to (registering its file again or moving the agent takes no counted rating away), newest first, each with verified and its reason, a verified one with its run receipt. " +
    `limit per page (default ${REPUTATION_PAGE_DEFAULT}, at most ${REPUTATION_PAGE_MAX}), continued with next_cursor. Anyone can recompute the verified rating from the chain and the files (the SDK's verifyReputation).`,
  request: {
    params: z.object({ listing_id: z.string() }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(REPUTATION_PAGE_MAX).optional(),
      cursor: z.string().max(200).optional(),
    }),
  },
  responses: {
    200: {
      description: "The listing's reputation",
      content: {
        "application/json": {
          schema: z
            .object({
              listing_id: z.string(),
              erc8004: z.object({ agent_id: z.string(), agent_registry: z.string() }).nullable(),
              rating: z.number(),
              review_count: z.number().int(),
              unverified_count: z.number().int(),
              before_on_chain: z.object({ rating: z.number(), review_count: z.number().int() }).openapi({ description: "Off-chain ratings from before on-chain feedback, shown apart" }),
              feedback: z.array(FeedbackSchema),
              next_cursor: z.string().nullable(),
            })
            .openapi("Reputation"),
        },
      },
    },
  },
  errors: { 400: ["invalid_request", "invalid_listing_id"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => c.json(await getReputation(c.get("services"), c.req.valid("param").listing_id, c.req.valid("query")), 200));
}
