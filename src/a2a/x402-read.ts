// GetTask (v0.3 tasks/get) for the payer of an x402 task, without a bearer token (decision 0257): the
// run's wallet proves itself by X-Wallet-Signature, its EIP-191 signature of run-read:<task id>:<unix
// timestamp> (src/erc8004/run-proof.ts), and gets the task as the paying message would have answered it:
// working with payment-verified (output withheld) while the settlement is unconfirmed, completed with
// payment-completed and x402.payment.receipts once the payment is in a block. Only a task paid by x402,
// of this agent, of the wallet that signed: anything else is TaskNotFound, as another wallet's task is to a
// bearer caller. Every other method stays bearer-only (the authentication lets no other through).
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { resolveAgentId } from "../execution/access.ts";
import { provenRun } from "../erc8004/run-proof.ts";
import { networkOf } from "../x402/requirements.ts";
import { taskNotFound } from "./errors.ts";
import { refusingHandler } from "./refusing-handler.ts";
import { taskOf } from "./tasks.ts";
import { withPaymentStatus } from "./x402.ts";

/** The methods a run's wallet may call with X-Wallet-Signature instead of a bearer token. */
export const WALLET_READ_METHODS: ReadonlySet<string> = new Set(["GetTask", "tasks/get"]);

/** Whether a request without a bearer token that carries X-Wallet-Signature reads a task (read from a copy of its body). */
export function a2aWalletReadApplies(body: string): boolean {
  try {
    const method = (JSON.parse(body) as { method?: unknown } | null)?.method;
    return typeof method === "string" && WALLET_READ_METHODS.has(method);
  } catch {
    return false;
  }
}

export interface WalletReadOptions {
  services: Services;
  /** The agent as the URL names it. */
  agentId: string;
  /** The request's X-Wallet-Signature. */
  proof: string;
}

/** The handler of a request whose wallet proves itself by signature: GetTask only. */
export function a2aWalletReadHandler(options: WalletReadOptions): A2ARequestHandler {
  const { services } = options;
  return {
    ...refusingHandler(
      "Missing Authorization header: X-Wallet-Signature reads a task paid by x402 (GetTask) only; send Authorization: Bearer <API key, JWT or access token> for the others.",
      "Missing Authorization header: X-Wallet-Signature reads a task only.",
    ),
    async getTask(params) {
      // A malformed or stale signature is 401 before anything is looked up; another wallet's run, an
      // unknown one, or a signature of another message is an unknown task.
      const run = await provenRun(services, params.id, options.proof, "read").catch((error: unknown) => {
        throw error instanceof ApiError && error.code === "not_found" ? taskNotFound(params.id) : error;
      });
      if (run.paid_by !== "x402" || run.on_chain_id !== (await resolveAgentId(services, options.agentId))) throw taskNotFound(params.id);
      return withPaymentStatus(taskOf(run), run, { network: networkOf(services.chain.chain.id), payer: run.wallet });
    },
  };
}
