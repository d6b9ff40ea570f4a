// Shared response schemas for the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "../errors.ts";

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES as [string, ...string[]]),
      message: z.string(),
      status: z.number().int(),
      request_id: z.string(),
      on_chain_error: z.object({ contract: z.string(), error: z.string() }).optional(),
    }),
  })
  .openapi("Error");

/** The error responses every authenticated route can give. */
export function errorResponses(...statuses: number[]) {
  const all = new Set([401, 429, 500, 503, ...statuses]);
  return Object.fromEntries(
    [...all].sort().map((status) => [status, { description: `Error (${status})`, content: { "application/json": { schema: ErrorBodySchema } } }]),
  );
}
