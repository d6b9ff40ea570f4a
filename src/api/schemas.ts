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

export const WalletSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .openapi({ example: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65" });

/** An EIP-191 signature: 65 bytes for an account; longer for ERC-1271 / ERC-6492 smart wallets. */
export const SignatureSchema = z
  .string()
  .max(20_000, "is too long")
  .regex(/^0x([0-9a-fA-F]{2})+$/, "must be 0x-prefixed hex")
  .openapi({ example: "0x…" });

/** Marks a route as needing `Authorization: Bearer <API key or JWT>`. */
export const bearer = [{ bearer: [] }];
