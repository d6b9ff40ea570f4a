// The schemas of the two execute routes (POST /v1/execute, POST /v1/execute/stream): the request, and
// the Run they answer (also the stream's `done` event); and a run as its renter reads it later
// (GET /v1/runs/{run_id}, and without its output in GET /v1/runs).
import { z } from "@hono/zod-openapi";
import { isContentAddress } from "../../execution/input.ts";
import { FinishedRunStatusSchema, RentalModelSchema, RunFailureSchema, RunStatusSchema, SettlementStateSchema } from "./common.ts";
import { CurrencySchema } from "./listings.ts";

/** Largest task description, in characters (the body as a whole is capped by MAX_BODY_BYTES). */
export const MAX_TASK_CHARS = 32_768;

export const ExecuteRequestSchema = z
  .object({
    agent_id: z.string().min(1).max(200).openapi({ description: "The agent id (<name>-<8 hex>), the listing id (lst_<64 hex>) or the on-chain id (0x<64 hex>) to run against. Malformed: 400 invalid_listing_id; unknown or unpublished: 404 listing_not_found." }),
    task: z.string().min(1, "must not be empty").max(MAX_TASK_CHARS).openapi({ description: "Natural-language description of the work" }),
    input: z.union([z.string(), z.record(z.string(), z.unknown())]).optional().openapi({ description: "Free text or a JSON object, checked against the agent's input schema before the agent runs (a mismatch ends the run failed with invalid_input, and the agent is never called)" }),
    input_uri: z
      .string()
      .refine(isContentAddress, "must be ipfs://<CIDv1> of content uploaded with POST /v1/inputs")
      .optional()
      .openapi({ description: "Instead of input (never both): ipfs://<CIDv1> of content uploaded with POST /v1/inputs, checked against its address when the run reads it. Content that is a JSON object reaches the agent as an object, anything else as text." }),
    priority: z.enum(["standard", "priority"]).optional().openapi({ description: "standard (default) or priority; recorded on the run" }),
    timeout_seconds: z.number().int().min(1).max(300).optional().openapi({ description: "Maximum run time: the run gets the lower of this and the agent's own timeout_seconds" }),
  })
  .strict()
  .refine((body) => !(body.input !== undefined && body.input_uri !== undefined), { message: "send either input or input_uri, not both", path: ["input_uri"] })
  .openapi("ExecuteRequest", {
    description: "A task for a rented agent. Unknown fields are refused (400 invalid_request naming them), so a misspelt field never runs silently with a default.",
  });

export const RunSchema = z
  .object({
    run_id: z.string(),
    agent_id: z.string(),
    status: FinishedRunStatusSchema,
    output: z.unknown().openapi({ description: "Shaped by the agent's output schema; on failure, the partial output (a string)" }),
    cost_wei: z.number().int().openapi({ description: "Wei deducted from the per-task balance (an exact JSON integer); 0 for one_time and subscription" }),
    duration_ms: z.number().int(),
    error: RunFailureSchema.optional(),
    settlement: z
      .literal("pending")
      .optional()
      .openapi({ description: "Present when the run's per-task charge is not confirmed on-chain yet: output is null until it is; GET /v1/runs/{run_id} releases it once the charge lands. The run is not run or charged again." }),
  })
  .openapi("Run");

/** A run's fields as its renter reads them, but its output: what a run and a list of runs share. */
const runFields = {
  run_id: z.string(),
  agent_id: z.string(),
  listing_id: z.string(),
  status: RunStatusSchema,
  cost_wei: z.number().int(),
  duration_ms: z.number().int(),
  error: RunFailureSchema.optional(),
  rental_model: RentalModelSchema,
  settlement: SettlementStateSchema,
  settlement_tx: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  receipt: z
    .object({ batch_index: z.number().int(), root: z.string(), leaf: z.string(), proof: z.array(z.string()), tx_hash: z.string() })
    .nullable()
    .openapi({ description: "The run's receipt in the on-chain run log (verify with the contract's verifyRunReceipt(batch_index, receipt fields, proof): it hashes the leaf from the run's fields itself, and leaf is that hash); null until logged" }),
  // The currency of the run's listing: cost_wei is in its smallest unit (wei for ETH, 10^-6 USDC for USDC).
  currency: CurrencySchema,
};

export const RunDetailSchema = z
  .object({
    ...runFields,
    output: z.unknown().openapi({ description: "null while running, and while a per-query charge is unconfirmed (settlement pending) or was refused" }),
  })
  .openapi("RunDetail");

/** A run in a list (GET /v1/runs): the run without its output, which GET /v1/runs/{run_id} gives. */
export const RunSummarySchema = z.object(runFields).openapi("RunSummary", { description: "A run as listed: every field of RunDetail but its output (read it with GET /v1/runs/{run_id})" });
