// GET /v1/creators/me: the caller's creator application and agents, with review decisions and reasons.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { getCreator } from "../../creators/creators.ts";
import { listAgentsOfCreator } from "../../listings/listing.store.ts";
import { CreatorProfileSchema } from "../schemas/creators.ts";
import { defineRoute } from "../route.ts";
import { ReviewStatusSchema } from "../schemas/common.ts";

const CreatorAgentSchema = z
  .object({ listing_id: z.string(), agent_id: z.string(), metadata_uri: z.string(), listing_seed: z.string(), review_status: ReviewStatusSchema, review_reason: z.string().nullable() })
  .openapi("CreatorAgent");

export const route = defineRoute({
  method: "get",
  path: "/v1/creators/me",
  operationId: "getCreatorProfile",
  tag: "Creators",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "My creator profile and agents",
  responses: {
    200: { description: "Profile and agents", content: { "application/json": { schema: z.object({ profile: CreatorProfileSchema, agents: z.array(CreatorAgentSchema) }).openapi("CreatorOverview") } } },
  },
  errors: { 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { tables } = c.get("services");
    const wallet = c.get("principal").wallet;
    const profile = await getCreator(tables, wallet);
    if (!profile) throw new ApiError("not_found", "No creator application for this wallet; apply with POST /v1/creators.");
    const agents = (await listAgentsOfCreator(tables, wallet)).map((i) => ({
      listing_id: i.listing_id,
      agent_id: i.agent_id,
      metadata_uri: i.metadata_uri,
      listing_seed: i.listing_seed as string,
      review_status: i.review_status,
      review_reason: i.review_reason ?? null,
    }));
    return c.json({ profile, agents }, 200);
  });
}
