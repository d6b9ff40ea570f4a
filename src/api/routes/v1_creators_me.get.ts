// GET /v1/creators/me: the caller's creator application and agents, with review decisions and reasons.
// A wallet that never applied is an answer, not an error: `profile: null` and no agents (a page or a
// CLI asks this to learn whether to offer the application, so it is not a refused request).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
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
  description:
    "The caller's creator application (its status and, after a rejection, the reason) and the agents the caller registered, each with its listing ids and review status. A wallet that never applied gets `profile: null` and no agents: an answer, not a 404.",
  responses: {
    200: {
      description: "Profile and agents; `profile` is null (and `agents` empty) when the wallet never applied",
      content: { "application/json": { schema: z.object({ profile: CreatorProfileSchema.nullable(), agents: z.array(CreatorAgentSchema) }).openapi("CreatorOverview") } },
    },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { tables } = c.get("services");
    const wallet = c.get("principal").wallet;
    const profile = await getCreator(tables, wallet);
    if (!profile) return c.json({ profile: null, agents: [] }, 200);
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
