// A creator's application as its creator and the reviewers see it.
import { z } from "@hono/zod-openapi";
import { ReviewStatusSchema } from "./common.ts";

export const CreatorProfileSchema = z
  .object({
    wallet: z.string(),
    display_name: z.string(),
    status: ReviewStatusSchema,
    reason: z.string().nullable(),
    applied_at: z.string(),
    reviewed_at: z.string().nullable(),
  })
  .openapi("CreatorProfile");
