// GET /v1/auth/challenge?wallet=: a sign-in challenge for the wallet to sign (no bearer token).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { getAddress } from "viem";
import type { AppEnv } from "../env.ts";
import { issueChallenge } from "../../auth/challenges.ts";
import { WalletSchema } from "../schemas/common.ts";
import { defineRoute } from "../route.ts";

const ChallengeSchema = z
  .object({
    challenge: z.string().openapi({ description: "<service>:auth:<unix_timestamp>:<random_hex>; sign it with personal_sign (EIP-191)" }),
    expires_at: z.number().int().openapi({ description: "Unix seconds; 60 s after issue" }),
  })
  .openapi("AuthChallenge");

export const route = defineRoute({
  method: "get",
  path: "/v1/auth/challenge",
  operationId: "getAuthChallenge",
  tag: "Auth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get a sign-in challenge",
  description: "Returns a challenge valid for 60 seconds and usable once. Sign it with the wallet (EIP-191 personal_sign) and exchange it at POST /v1/auth/token.",
  request: { query: z.object({ wallet: WalletSchema }) },
  responses: {
    200: { description: "The challenge", content: { "application/json": { schema: ChallengeSchema } } },
  },
  errors: { 400: ["invalid_request"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const { wallet } = c.req.valid("query");
    return c.json(await issueChallenge(services.tables, services.config.SERVICE_NAME, getAddress(wallet)), 200);
  });
}
