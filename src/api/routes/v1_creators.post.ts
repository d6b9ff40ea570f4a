// POST /v1/creators: apply to list agents (beta: the protocol authority reviews applications).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { applyAsCreator } from "../../creators/creators.ts";
import { defineRoute } from "../route.ts";
import { CreatorProfileSchema } from "../schemas/creators.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/creators",
  operationId: "applyAsCreator",
  tag: "Creators",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // a write; nothing needs it during an outage
  summary: "Apply as a creator",
  description: "During the beta only reviewed creators register agents. Applying again after a rejection puts the application back in review; an approved creator stays approved.",
  request: { body: { content: { "application/json": { schema: z.object({ display_name: z.string().max(64) }).openapi("CreatorApplication") } }, required: true } },
  responses: {
    200: { description: "The application", content: { "application/json": { schema: CreatorProfileSchema } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => c.json(await applyAsCreator(c.get("services").tables, c.get("principal").wallet, c.req.valid("json").display_name), 200));
}
