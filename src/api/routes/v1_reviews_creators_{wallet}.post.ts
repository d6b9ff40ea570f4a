// POST /v1/reviews/creators/{wallet}: the protocol authority approves or rejects a creator application
// (beta); a rejection carries the reason the creator reads.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { requireAuthority } from "../../reviews/authority.ts";
import { reviewCreator } from "../../creators/creators.ts";
import { CreatorProfileSchema } from "../schemas/creators.ts";
import { WalletSchema } from "../schemas/common.ts";
import { DecisionSchema } from "../schemas/reviews.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/reviews/creators/{wallet}",
  operationId: "reviewCreator",
  tag: "Reviews",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // an authority decision; it can wait for the outage to end
  summary: "Approve or reject a creator (authority)",
  description: "A rejection needs a reason; the creator reads it at GET /v1/creators/me.",
  request: { params: z.object({ wallet: WalletSchema }), body: { content: { "application/json": { schema: DecisionSchema } }, required: true } },
  responses: { 200: { description: "The reviewed application", content: { "application/json": { schema: CreatorProfileSchema } } } },
  errors: { 403: ["forbidden"], 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    await requireAuthority(c.get("services").chain, c.get("principal").wallet);
    const body = c.req.valid("json");
    return c.json(await reviewCreator(c.get("services").tables, c.req.valid("param").wallet, body.decision, body.reason), 200);
  });
}
