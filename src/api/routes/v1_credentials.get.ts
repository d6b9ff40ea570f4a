// GET /v1/credentials: the authenticated wallet's rental credentials.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { listCredentials } from "../../credentials/list.ts";
import { chainNowOrClock } from "../../credentials/chain-time.ts";
import { CredentialStatusSchema, ListedCredentialStatusSchema, RentalModelSchema } from "../schemas/common.ts";
import { defineRoute } from "../route.ts";
import { CurrencySchema } from "../schemas/listings.ts";

const CredentialSchema = z
  .object({
    listing_id: z.string(),
    listing_title: z.string(),
    rental_model: RentalModelSchema,
    status: CredentialStatusSchema,
    purchased_at: z.string().openapi({ description: "ISO 8601" }),
    expires_at: z.string().nullable().openapi({ description: "ISO 8601 for subscriptions; null otherwise" }),
    on_chain_listing_id: z.string(),
    currency: CurrencySchema,
    balance_wei: z.string().optional().openapi({ description: "A per_query credential's balance from the index, in the smallest unit of the listing's currency (wei for ETH, 10^-6 USDC for USDC); absent for the other models" }),
  })
  .openapi("Credential");

export const route = defineRoute({
  method: "get",
  path: "/v1/credentials",
  operationId: "listCredentials",
  tag: "Credentials",
  access: "bearer",
  oauthScope: "credentials:read",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "List rental credentials",
  description:
    "The authenticated wallet's credentials from the service's index of the chain, newest purchase first. A status is judged at the chain's time (the latest block's timestamp, the clock the contract judges a subscription's expiry by), or by the server's clock while the chain cannot be read. `status` filters by active, expired or low_balance (also revoked and listing_closed); omit it for all. `total` counts every credential the filter matches.",
  request: {
    query: z.object({
      status: ListedCredentialStatusSchema.optional(),
      limit: z.coerce.number().int().min(1).max(100).default(20),
      offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    }),
  },
  responses: {
    200: { description: "Credentials", content: { "application/json": { schema: z.object({ credentials: z.array(CredentialSchema), total: z.number().int() }).openapi("CredentialList") } } },
  },
  errors: { 400: ["invalid_request"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const services = c.get("services");
    const result = await listCredentials(
      services.tables,
      c.get("principal").wallet,
      { limit: query.limit, offset: query.offset, ...(query.status ? { status: query.status } : {}) },
      await chainNowOrClock(services.chain, () => services.logger.warn("credentials listed by the server's clock: the chain could not be read")),
    );
    return c.json(result, 200);
  });
}
