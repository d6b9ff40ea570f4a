// A reviewer's decision on a creator application or a listing (beta: the protocol authority reviews).
import { z } from "@hono/zod-openapi";

export const DecisionSchema = z.object({ decision: z.enum(["approve", "reject"]), reason: z.string().max(1000).optional() }).openapi("ReviewDecision");
