// Spending limits as the API takes and shows them (money/spend-limits.ts holds their rules).
import { z } from "@hono/zod-openapi";
import { LISTING_CURRENCIES, SPEND_PERIODS } from "../../execution/money/spend-limits.ts";

export const SpendLimitInputSchema = z
  .object({
    currency: z.enum(LISTING_CURRENCIES).default("ETH").openapi({ description: "The currency the limit counts; a currency no listing is priced in is refused. ETH today" }),
    period: z.enum(SPEND_PERIODS).openapi({ description: "day: each calendar day, UTC; month: each calendar month, UTC; total: for the key's or app's whole life, never reset" }),
    amount: z.string().regex(/^[0-9]{1,40}$/, "must be a whole number of wei, as a decimal string").openapi({ description: "The most the key or app may spend per period, wei (more than 0, at most 10^24)", example: "3000000000000000" }),
  })
  .strict()
  .openapi("SpendLimitInput", { description: "A spending limit: an amount per day, per month or in total, in one currency" });

export const SpendLimitsInputSchema = z.array(SpendLimitInputSchema).openapi({ description: "At most one limit per currency and period; [] removes every limit" });

export const SpendLimitSchema = z
  .object({
    currency: z.enum(LISTING_CURRENCIES),
    period: z.enum(SPEND_PERIODS),
    amount: z.string().openapi({ description: "The limit, wei" }),
    spent: z.string().openapi({ description: "Charged in the current period, wei" }),
    reserved: z.string().openapi({ description: "Held by runs in flight, wei (charged if they succeed, given back if not)" }),
    remaining: z.string().openapi({ description: "What may still be spent in the current period, wei: the limit less spent and reserved" }),
    resets_at: z.string().nullable().openapi({ description: "When the period ends and spending counts from zero again (ISO 8601, UTC); null for a limit in total" }),
  })
  .openapi("SpendLimit", { description: "A spending limit with its current period's spending" });
