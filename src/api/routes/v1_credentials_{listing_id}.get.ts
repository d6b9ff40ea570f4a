// GET /v1/credentials/{listing_id}: the caller's credential for one listing, verified on-chain.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { parseListingId } from "../../listings/ids.ts";
import { CredentialStatusSchema, RentalModelSchema } from "../schemas/common.ts";
import { verifyCredential } from "../../credentials/verify.ts";
import { defineRoute } from "../route.ts";
import { CurrencySchema } from "../schemas/listings.ts";

const VerificationSchema = z
  .object({
    listing_id: z.string(),
    rental_model: RentalModelSchema.optional(),
    status: CredentialStatusSchema,
    valid: z.boolean(),
    expired_at: z.string().optional().openapi({ description: "ISO 8601; present when a subscription has expired" }),
    on_chain_listing_id: z.string().optional(),
    on_chain_verified: z.boolean(),
    // The listing's currency; absent when no credential was found.
    currency: CurrencySchema.optional(),
    balance_wei: z.string().optional().openapi({ description: "A per_query credential's balance as the contract holds it now, in the smallest unit of the listing's currency (wei for ETH, 10^-6 USDC for USDC); absent for the other models" }),
  })
  .openapi("CredentialVerification");

export const route = defineRoute({
  method: "get",
  path: "/v1/credentials/{listing_id}",
  operationId: "verifyCredential",
  tag: "Credentials",
  access: "bearer",
  oauthScope: "credentials:read",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Verify a rental credential",
  description:
    "Checks the local record and the contract for the authenticated wallet, in parallel: one live read of the listing's contract's credentialOf (the Marketplace's, or the TokenMarketplace's for a listing priced in a token: status, rental model, purchase time, expiry, balance and revocation in one eth_call). The chain's answer is returned; a local record that disagrees in any field is repaired, or removed when the chain has no credential. When the chain cannot be reached the answer is 503 service_unavailable, never the index's. status: active (valid), expired (with expired_at), low_balance (a per_query rental whose balance cannot pay for one run at the listing's current price, or whose withdrawal the renter requested), revoked, listing_closed, or not_found.",
  request: { params: z.object({ listing_id: z.string() }) },
  responses: {
    200: { description: "The verification", content: { "application/json": { schema: VerificationSchema } } },
  },
  errors: { 400: ["invalid_listing_id"], 503: ["service_unavailable"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const listingId = parseListingId(c.req.valid("param").listing_id);
    return c.json(await verifyCredential({ tables: services.tables, chain: services.chain }, listingId, c.get("principal").wallet), 200);
  });
}
