// POST /v1/inputs: stores a task input content-addressed (CIDv1, sha-256) and returns its ipfs:// URI,
// for execute's input_uri. The same content always gets the same address; the service checks the
// content against its address when a run reads it.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { cidOf } from "../../registration/cid.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/inputs",
  operationId: "uploadInput",
  tag: "Inputs",
  access: "bearer",
  oauthScope: "tasks:run",
  rateLimit: { rule: "default", failMode: "closed" }, // stores content: an unlimited burst costs storage
  summary: "Upload a task input",
  description: "Stores the content (UTF-8 text, or base64 for other bytes) content-addressed and returns input_uri (ipfs://<CIDv1>) to pass to POST /v1/execute instead of input. Text that is a JSON object reaches the agent as an object; other content as text. The request body limit applies.",
  request: {
    body: {
      content: { "application/json": { schema: z.object({ content: z.string().min(1, "must not be empty"), encoding: z.enum(["utf8", "base64"]).optional() }).strict().openapi("InputUpload") } },
      required: true,
    },
  },
  responses: {
    201: { description: "Stored", content: { "application/json": { schema: z.object({ input_uri: z.string(), bytes: z.number().int() }).openapi("InputStored") } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { content, encoding } = c.req.valid("json");
    if (encoding === "base64" && !/^[A-Za-z0-9+/]*={0,2}$/.test(content)) throw new ApiError("invalid_request", "content: is not valid base64.");
    const bytes = encoding === "base64" ? Buffer.from(content, "base64") : Buffer.from(content, "utf8");
    if (bytes.length === 0) throw new ApiError("invalid_request", "content: must not be empty.");
    const cid = cidOf(bytes);
    await c.get("services").blobs.put(`inputs/${cid}`, bytes, "application/octet-stream");
    return c.json({ input_uri: `ipfs://${cid}`, bytes: bytes.length }, 201);
  });
}
