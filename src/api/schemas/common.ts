// Shapes every resource uses: the error envelope (narrowed per route and status in openapi.ts), wallet
// addresses and signatures, and the product's words as zod enums. The enums are derived from the
// vocabulary (@agent-rental/core/vocabulary, which has no zod, so the CLI and the dashboard import it
// without zod) and stay unnamed, so the OpenAPI document writes each one inline where a field uses it
// (the run failure, an object of its own, is named).
import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "../../errors.ts";
import {
  CATEGORIES,
  CREDENTIAL_STATUSES,
  FINISHED_RUN_STATUSES,
  JOB_STATUSES,
  LISTED_CREDENTIAL_STATUSES,
  LISTING_STATUSES,
  RENTAL_MODELS,
  REVIEW_STATUSES,
  RUN_FAILURE_CODES,
  RUN_STATUSES,
  SETTLEMENT_STATES,
} from "@agent-rental/core/vocabulary";

export const CategorySchema = z.enum(CATEGORIES);
export const RentalModelSchema = z.enum(RENTAL_MODELS);
export const ListingStatusSchema = z.enum(LISTING_STATUSES);
export const CredentialStatusSchema = z.enum(CREDENTIAL_STATUSES);
/** The statuses GET /v1/credentials filters by (a list never holds `not_found`). */
export const ListedCredentialStatusSchema = z.enum(LISTED_CREDENTIAL_STATUSES);
export const RunStatusSchema = z.enum(RUN_STATUSES);
export const FinishedRunStatusSchema = z.enum(FINISHED_RUN_STATUSES);
export const SettlementStateSchema = z.enum(SETTLEMENT_STATES);

/** Why a failed run failed (the Run's `error`): a code of the vocabulary and a sentence for the renter.
 * A component of its own, so the SDK's types and the API reference name the codes once. */
export const RunFailureSchema = z
  .object({
    code: z.enum(RUN_FAILURE_CODES).openapi({ description: "Why the run failed; each code's meaning: docs/reference/runs.md (Why a run failed)" }),
    message: z.string().openapi({ description: "For the renter: never a key, a signature or a connected agent's URL" }),
  })
  .openapi("RunFailure", { description: "Why a failed run failed" });
export const JobStatusSchema = z.enum(JOB_STATUSES);
export const ReviewStatusSchema = z.enum(REVIEW_STATUSES);

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES as [string, ...string[]]),
      message: z.string(),
      status: z.number().int(),
      request_id: z.string(),
      on_chain_error: z
        .object({ contract: z.string(), error: z.string() })
        .optional()
        .openapi({ description: "The contract's custom error behind a refusal, decoded from the revert" }),
      spend_limit: z
        .object({
          scope: z.enum(["key", "app"]).openapi({ description: "Whose limit: the API key's or the connected app's" }),
          id: z.string().openapi({ description: "The key_id or the app_id" }),
          currency: z.string(),
          period: z.enum(["day", "month", "total"]),
          amount: z.string().openapi({ description: "The limit, wei" }),
          spent: z.string().openapi({ description: "Charged in the current period, wei" }),
          reserved: z.string().openapi({ description: "Held by runs in flight, wei" }),
          remaining: z.string().openapi({ description: "What may still be spent in the period, wei" }),
          resets_at: z.string().nullable().openapi({ description: "When the period ends (ISO 8601, UTC); null for a limit in total" }),
        })
        .optional()
        .openapi({ description: "With spend_limit_reached: the limit the run would have passed" }),
    }),
  })
  .openapi("Error", { description: "The envelope of every error answer. Each operation lists, per status, the codes it can return." });

export const WalletSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .openapi({ example: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65" });

/** An EIP-191 signature: 65 bytes for an account; longer for ERC-1271 / ERC-6492 smart wallets. */
export const SignatureSchema = z
  .string()
  .max(20_000, "is too long")
  .regex(/^0x([0-9a-fA-F]{2})+$/, "must be 0x-prefixed hex")
  .openapi({ example: `0x${"5f".repeat(32)}${"2c".repeat(32)}1b` });
