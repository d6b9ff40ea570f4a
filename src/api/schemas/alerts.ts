// Alerts as the API takes and shows them (src/alerts/ holds their rules).
import { z } from "@hono/zod-openapi";
import { ALERT_TYPES } from "../../alerts/alert.store.ts";

/** The most runs a low-balance threshold may name. */
export const MAX_LOW_BALANCE_RUNS = 1_000_000;

export const AlertSettingsInputSchema = z
  .object({
    webhook_url: z
      .string()
      .max(2048)
      .nullable()
      .openapi({ description: "Where alerts are delivered (HTTPS; signed with Standard Webhooks, as connected agents' webhooks are); null: alerts show in the dashboard only", example: "https://example.com/hooks/agent-rental" }),
    low_balance_runs: z
      .number()
      .int()
      .min(1)
      .max(MAX_LOW_BALANCE_RUNS)
      .nullable()
      .default(null)
      .openapi({ description: "Alert when a per-task balance falls below this many runs at its listing's price; null: never", example: 5 }),
    rotate_secret: z.boolean().default(false).openapi({ description: "Make a new signing secret (returned in this answer only); the old one stops signing at once" }),
  })
  .strict()
  .openapi("AlertSettingsInput", { description: "Where the wallet's alerts go, and when a low balance alerts" });

export const AlertSettingsSchema = z
  .object({
    webhook_url: z.string().nullable(),
    low_balance_runs: z.number().int().nullable(),
    webhook_secret: z.string().optional().openapi({ description: "The webhook's signing secret (`whsec_…`): only in the answer that made it (the first settings, or rotate_secret)" }),
    created_at: z.string().nullable().openapi({ description: "When the settings were first set; null before" }),
    updated_at: z.string().nullable(),
  })
  .openapi("AlertSettings", { description: "The wallet's alert settings; alerts cross at 80% and 100% of every spending limit of its keys and apps and of every on-chain charge cap it set, and below the low-balance threshold" });

export const AlertSchema = z
  .object({
    alert_id: z.string(),
    type: z.enum(ALERT_TYPES).openapi({ description: "spend_limit: a key's or app's limit reached 80% or 100% (no run at the last price fits what is left); low_balance: a per-task balance fell below the chosen number of runs; charge_cap: the renter's on-chain charge cap (setChargeCap) on a listing reached 80% or 100% of its period (no run at the last price fits what is left)" }),
    data: z.record(z.string(), z.unknown()).openapi({ description: "What crossed: for spend_limit threshold, scope (key or app), id, currency, period, amount, spent, remaining, resets_at; for low_balance listing_id, balance_wei, price_wei, runs_left, threshold_runs; for charge_cap threshold, listing_id, amount, period_seconds, spent (charged in the current period), remaining, resets_at (the period's end, on the chain's clock). All name the run whose charge crossed it (run_id)" }),
    created_at: z.string(),
    delivery: z.enum(["pending", "delivered", "failed", "no_webhook"]).openapi({ description: "The webhook delivery: pending (being tried, with backoff), delivered, failed (given up after its retries, or the webhook was removed), no_webhook (none was set when it was raised)" }),
    attempts: z.number().int(),
    last_error: z.string().optional().openapi({ description: "Why the last attempt failed (a status or an unreachable host; never the URL)" }),
    delivered_at: z.string().optional(),
  })
  .openapi("Alert", { description: "One crossing, raised once: shown in the dashboard and delivered to the webhook" });
