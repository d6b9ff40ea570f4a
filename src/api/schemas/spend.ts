// Spending limits as the API takes and shows them (money/spend-limits.ts holds their rules).
import { z } from "@hono/zod-openapi";
import { SPEND_PERIODS } from "../../execution/money/spend-limits.ts";

export const SpendLimitInputSchema = z
  .object({
    currency: z.string().max(64).default("ETH").openapi({ description: "The currency the limit counts: ETH, or a token listings are priced in, by its symbol (USDC) or address; stored as the symbol. A currency no listing is priced in is refused. A run counts against the limits in its listing's currency only", example: "ETH" }),
    period: z.enum(SPEND_PERIODS).openapi({ description: "day: each calendar day, UTC; month: each calendar month, UTC; total: for the key's or app's whole life, never reset" }),
    amount: z.string().regex(/^[0-9]{1,40}$/, "must be a whole number of the currency's smallest unit (wei for ETH), as a decimal string").openapi({ description: "The most the key or app may spend per period, in the currency's smallest unit: wei for ETH, 10^-6 USDC for USDC (more than 0, at most 1,000,000 whole units: 10^24 wei)", example: "3000000000000000" }),
  })
  .strict()
  .openapi("SpendLimitInput", { description: "A spending limit: an amount per day, per month or in total, in one currency" });

export const SpendLimitsInputSchema = z.array(SpendLimitInputSchema).openapi({ description: "At most one limit per currency and period; [] removes every limit" });

export const SpendLimitSchema = z
  .object({
    currency: z.string().openapi({ description: "ETH, or the symbol of the token the limit counts" }),
    period: z.enum(SPEND_PERIODS),
    amount: z.string().openapi({ description: "The limit, in the currency's smallest unit (wei for ETH)" }),
    spent: z.string().openapi({ description: "Charged in the current period, in the currency's smallest unit" }),
    reserved: z.string().openapi({ description: "Held by runs in flight, in the currency's smallest unit (charged if they succeed, given back if not)" }),
    remaining: z.string().openapi({ description: "What may still be spent in the current period, in the currency's smallest unit: the limit less spent and reserved" }),
    resets_at: z.string().nullable().openapi({ description: "When the period ends and spending counts from zero again (ISO 8601, UTC); null for a limit in total" }),
  })
  .openapi("SpendLimit", { description: "A spending limit with its current period's spending" });
