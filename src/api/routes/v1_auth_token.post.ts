// POST /v1/auth/token: exchanges a signed challenge for a JWT valid one hour (no bearer token).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Address, Hex } from "viem";
import type { AppEnv } from "../env.ts";
import { exchangeSignedChallenge } from "../../auth/sign-in.ts";
import { SignatureSchema, WalletSchema } from "../schemas/common.ts";
import { defineRoute } from "../route.ts";

const TokenRequestSchema = z
  .object({
    wallet: WalletSchema,
    challenge: z.string().min(1).max(200),
    signature: SignatureSchema,
  })
  .openapi("AuthTokenRequest");

const TokenSchema = z
  .object({
    token: z.string().openapi({ description: "A JWT; send it as Authorization: Bearer <token>" }),
    expires_at: z.number().int().openapi({ description: "Unix seconds; one hour after issue" }),
  })
  .openapi("AuthToken");

export const route = defineRoute({
  method: "post",
  path: "/v1/auth/token",
  operationId: "exchangeAuthToken",
  tag: "Auth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" }, // sign-in; the signature and the single-use challenge are the guard
  summary: "Exchange a signed challenge for a JWT",
  description:
    "Verifies the EIP-191 signature of the challenge by the wallet (accounts by recovery; smart-contract wallets by ERC-1271, undeployed ones by ERC-6492) and consumes the challenge. A bad signature, a signature by another wallet, or an unknown, expired or reused challenge gives 401 invalid_signature.",
  request: { body: { content: { "application/json": { schema: TokenRequestSchema } }, required: true } },
  responses: {
    200: { description: "The JWT", content: { "application/json": { schema: TokenSchema } } },
  },
  errors: { 401: ["invalid_signature"], 503: ["service_unavailable"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const body = c.req.valid("json");
    const token = await exchangeSignedChallenge(
      { tables: services.tables, chain: services.chain, jwt: services.jwt, service: services.config.SERVICE_NAME },
      { wallet: body.wallet as Address, challenge: body.challenge, signature: body.signature as Hex },
    );
    return c.json(token, 200);
  });
}
