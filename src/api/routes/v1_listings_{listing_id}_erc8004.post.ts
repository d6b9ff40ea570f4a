// POST /v1/listings/{listing_id}/erc8004: the creator's ERC-8004 registration file of a listing and the
// unsigned transaction their wallet sends (register, then setAgentURI with the agent's id).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { prepareRegistration } from "../../erc8004/registration.ts";
import { defineRoute } from "../route.ts";
import { UnsignedTransactionSchema } from "../schemas/erc8004.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/listings/{listing_id}/erc8004",
  operationId: "prepareErc8004Registration",
  tag: "Listings",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // writes a file to permanent storage
  summary: "Prepare a listing's ERC-8004 registration",
  description:
    "For the listing's creator: writes the listing's ERC-8004 agent registration file (content-addressed, ipfs://<cid>, served at GET /v1/metadata/<cid>: type, name, description, image, services A2A (the Agent Card's URL), MCP (/v1/mcp) and web (the dashboard's page), x402Support (true for a per-task listing priced in an EIP-3009 token such as USDC, payable by x402; false otherwise), active (the listing's status is active), registrations, supportedTrust [\"reputation\"]) and answers the unsigned transaction for the creator's wallet to send to the Identity Registry. " +
    "Without agent_id: `register(agentURI, [{metadataKey: \"marketplaceListing\", metadataValue}])`, with a file whose registrations are still empty (the registry assigns the id); the Registered event gives the agent id. " +
    "With agent_id (an agent the caller owns): the complete file, registrations pointing back ({agentId, agentRegistry}), and `setAgentURI(agentId, agentURI)`; call it again whenever the listing's status changes so active follows it. " +
    "The listing's erc8004 (GET /v1/listings/{id}) names the agent once the indexer has read it, as long as the creator owns it. Another creator's listing is 404 listing_not_found.",
  request: {
    params: z.object({ listing_id: z.string() }),
    body: {
      content: {
        "application/json": {
          schema: z
            .object({ agent_id: z.string().regex(/^\d{1,78}$/).optional().openapi({ description: "The agent's id once registered (decimal string), to point the agent at the complete file" }) })
            .strict()
            .openapi("Erc8004RegistrationInput"),
        },
      },
      required: false,
    },
  },
  responses: {
    200: {
      description: "The registration file as stored and the transaction to send",
      content: {
        "application/json": {
          schema: z
            .object({
              listing_id: z.string(),
              agent_id: z.string().nullable().openapi({ description: "The agent id given, or null before registration" }),
              agent_registry: z.string().openapi({ description: "`eip155:<chainId>:<identity registry>`" }),
              agent_uri: z.string().openapi({ description: "ipfs://<cid> of the registration file" }),
              registration_file: z.record(z.string(), z.unknown()).openapi({ description: "The file's content" }),
              transaction: UnsignedTransactionSchema,
            })
            .openapi("Erc8004Registration"),
        },
      },
    },
  },
  errors: { 400: ["invalid_request", "invalid_listing_id"], 404: ["listing_not_found"], 503: ["service_unavailable"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const body = (c.req.valid("json") as { agent_id?: string } | undefined) ?? {};
    return c.json(await prepareRegistration(c.get("services"), c.get("principal").wallet, c.req.valid("param").listing_id, body, apiBaseOf(c.get("services"))), 200);
  });
}
