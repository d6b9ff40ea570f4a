// GET /v1/runs/{run_id}: a run, to the wallet that ran it: status, output, cost, duration, settlement and
// the receipt's on-chain reference once the run log has recorded it. Without a bearer token, the run's
// wallet may prove itself by X-Wallet-Signature (run-proof.ts, decision 0257): how an x402 payer reads a
// run whose settlement was pending when it was answered.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { RUN_ID } from "../../execution/runs/run.ts";
import { getRun } from "../../execution/runs/run.store.ts";
import { runDetailBody } from "../run-json.ts";
import { provenRun, WALLET_SIGNATURE_HEADER, WALLET_SIGNATURE_WINDOW_SECONDS } from "../../erc8004/run-proof.ts";
import type { Principal } from "../../auth/principal.ts";
import { defineRoute } from "../route.ts";
import { RunDetailSchema } from "../schemas/execution.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/runs/{run_id}",
  operationId: "getRun",
  tag: "Runs",
  access: "bearer",
  oauthScope: "tasks:run",
  provableBy: "wallet_signature",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get a run",
  description:
    "A run, to the wallet that ran it (another wallet's run is 404 not_found, as a missing one): its status, output, cost, duration and settlement, and its receipt in the on-chain run log once a batch has logged it (every minute in the cloud). `output` is null while the run is in flight and while a per-query charge is unconfirmed (`settlement: pending`); a failed synchronous run's partial output is never shown. cost_wei is an exact JSON integer, in the smallest unit of the run's `currency` (its listing's: ETH, or the token a TokenMarketplace listing is priced in). " +
    `Without a bearer token (the payer of an x402 run holds none), the run's wallet proves itself with X-Wallet-Signature: <unix_timestamp>:<signature>, its EIP-191 signature of "run-read:<run_id>:<unix_timestamp>", within ${WALLET_SIGNATURE_WINDOW_SECONDS} s of the service's clock, and reads the run exactly as with a token (the output once the payment is in a block). A malformed or stale signature is 401; another wallet's, or a signature of the feedback message, 404 not_found. Such a request is rate limited by client address, as public routes are.`,
  request: {
    params: z.object({ run_id: z.string() }),
    headers: z.object({ [WALLET_SIGNATURE_HEADER]: z.string().optional().openapi({ description: "Instead of Authorization: <unix_timestamp>:<0x signature> by the run's wallet of run-read:<run_id>:<unix_timestamp>" }) }),
  },
  responses: {
    200: { description: "The run", content: { "application/json": { schema: RunDetailSchema } } },
  },
  errors: { 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const runId = c.req.valid("param").run_id;
    // No principal: the authentication let the request through on its X-Wallet-Signature (route.ts provableBy).
    const principal = c.get("principal") as Principal | undefined;
    if (!principal) return c.json(runDetailBody(await provenRun(c.get("services"), runId, c.req.header(WALLET_SIGNATURE_HEADER) ?? "", "read")), 200);
    const record = RUN_ID.test(runId) ? await getRun(c.get("services").tables, runId) : null;
    // Another wallet's run is as unknown as one that does not exist.
    if (!record || record.wallet !== principal.wallet.toLowerCase()) throw new ApiError("not_found", `No run ${runId} for this wallet.`);
    return c.json(runDetailBody(record), 200);
  });
}
