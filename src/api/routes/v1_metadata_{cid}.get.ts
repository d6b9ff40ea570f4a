// GET /v1/metadata/{cid}: the gateway for listings' public metadata (ipfs://<cid>). Public; the
// content never changes for a CID, so it is cacheable forever.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { CID_SHAPE } from "../../registration/cid.ts";
import { answerAs, defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/metadata/{cid}",
  operationId: "getListingMetadata",
  tag: "Metadata",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get a listing's public metadata",
  description: "Serves the content-addressed metadata document of a listing (its metadata_uri is ipfs://<cid>). Needs no token.",
  request: { params: z.object({ cid: z.string() }) },
  responses: {
    200: { description: "The metadata document", content: { "application/json": { schema: z.record(z.string(), z.unknown()).openapi("ListingMetadata") } } },
  },
  errors: { 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const cid = c.req.valid("param").cid;
    const bytes = CID_SHAPE.test(cid) ? await c.get("services").blobs.get(`ipfs/${cid}`) : null;
    if (!bytes) throw new ApiError("not_found", `No metadata at ipfs://${cid}.`);
    return answerAs(route, new Response(bytes, { status: 200, headers: { "content-type": "application/json", "cache-control": "public, max-age=31536000, immutable" } }));
  });
}
