// API keys as the API shows them (never the key itself, except once in the answer that creates it).
import { z } from "@hono/zod-openapi";
import { SpendLimitSchema } from "./spend.ts";

export const ApiKeySchema = z
  .object({
    key_id: z.string(),
    label: z.string(),
    prefix: z.string().openapi({ description: "The first characters of the key, to recognise it" }),
    created_at: z.string(),
    last_used_at: z.string().nullable().openapi({ description: "Refreshed at most once a minute" }),
    revoked: z.boolean(),
    spend_limits: z.array(SpendLimitSchema).openapi({ description: "What the key may spend on per-task runs, per period, with this period's spending; [] when unlimited" }),
  })
  .openapi("ApiKey");
