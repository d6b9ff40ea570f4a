// GET /v1/currencies: what listings may be priced and paid in here (ETH on the Marketplace, each token of
// the allowlist on the TokenMarketplace), with the contracts, so a client names a currency by its symbol
// and reads its decimals and how it pays without a configuration of its own. Public: the same facts the
// chain and the listings show.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { acceptedCurrencies } from "../../listings/currency.ts";

const AcceptedCurrencySchema = z
  .object({
    symbol: z.string().openapi({ description: "ETH, or the token's symbol (USDC)" }),
    address: z.string().nullable().openapi({ description: "The token's contract address; null for ETH" }),
    decimals: z.number().int().openapi({ description: "Decimals of the smallest unit: 18 for ETH (wei), 6 for USDC" }),
    contract: z.string().openapi({ description: "The marketplace contract listings in this currency live on: the Marketplace for ETH, the TokenMarketplace for a token" }),
    name: z.string().nullable().openapi({ description: "The token's EIP-712 domain name (its `name()`), which permit and EIP-3009 signatures name; null for ETH" }),
    version: z.string().nullable().openapi({ description: "The token's EIP-712 domain version; null for ETH" }),
    x402: z.boolean().openapi({ description: "Whether per-task listings in it are payable by x402 (the token implements EIP-3009)" }),
  })
  .openapi("AcceptedCurrency");

const CurrenciesSchema = z
  .object({
    chain_id: z.number().int(),
    currencies: z.array(AcceptedCurrencySchema).openapi({ description: "ETH first, then the tokens of the allowlist as the service is configured" }),
  })
  .openapi("Currencies");

export const route = defineRoute({
  method: "get",
  path: "/v1/currencies",
  operationId: "listCurrencies",
  tag: "Listings",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "List the currencies listings are priced in",
  description:
    "ETH (on the Marketplace) and each token listings may be priced in (on the TokenMarketplace, from the protocol's allowlist), with its address, decimals, EIP-712 domain and whether per-task listings in it are payable by x402. A listing's `currency` is one of these.",
  responses: {
    200: { description: "The currencies", content: { "application/json": { schema: CurrenciesSchema } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, (c) => {
    const { chain, config } = c.get("services");
    return c.json({ chain_id: config.CHAIN_ID, currencies: acceptedCurrencies(chain) }, 200);
  });
}
