// Exit codes and the one error type commands throw. Every error says what to do next.
import { AgentRentalError } from "@agent-rental/sdk";

/** The process exit codes (documented in cli/README.md). */
export const EXIT = {
  ok: 0,
  /** Anything else that failed, including a task run that finished with status failed. */
  failure: 1,
  /** Unknown command, a missing or malformed argument or flag, a file that cannot be read. */
  usage: 2,
  /** Not signed in, an expired session, a refused key or signature, no wallet, a wrong keystore password. */
  auth: 3,
  /** Access or payment refused: 403 from the API, a transaction the contract refuses, not enough ETH. */
  access: 4,
  /** No such listing, job, key or run. */
  notFound: 5,
  /** A manifest with problems (validate, or a registration job that failed). */
  invalid: 6,
  /** Rate limited (429); retry after the time given. */
  rateLimited: 7,
  /** The API or the chain could not be reached, or answered 5xx; retry later. */
  unavailable: 8,
  /** Interrupted with Ctrl-C (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly code = "error",
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT.usage, "usage");

/** What to do after an API error, by its code. */
const HINTS: Record<string, string> = {
  jwt_expired: "Your session has expired: run `agentrent login` to sign in again.",
  unauthorized: "Run `agentrent login` (or set AGENTRENT_API_KEY to a valid API key).",
  invalid_api_key: "The API key is invalid or revoked: create one with `agentrent keys create`, or unset AGENTRENT_API_KEY and run `agentrent login`.",
  invalid_signature: "Sign in again with `agentrent login` (the challenge lasts 60 seconds).",
  credential_not_found: "Rent the agent first: `agentrent rent <listing>`.",
  credential_expired: "Renew the subscription: `agentrent renew <listing> --duration 30d`.",
  insufficient_balance: "Top up the per-task balance: `agentrent topup <listing> --runs 10`.",
  listing_paused: "The creator paused this listing; try again once it is resumed.",
  creator_not_approved: "Apply with `agentrent creators apply --name \"Your name\"` and wait for the review (`agentrent creators status`).",
  forbidden: "Only the protocol authority's wallet may do this.",
  listing_not_found: "Check the id with `agentrent search` (a listing appears once it is listed on-chain and approved).",
  rate_limit_exceeded: "Wait and retry.",
  service_unavailable: "The service is temporarily unavailable; retry shortly.",
  internal_error: "Retry; if it persists, quote the request id to support.",
  connection_failed: "Is the API running and the API URL right? (`agentrent config show`; for the local stack: `npm start`).",
};

/** Turns an SDK error (or an API error of a raw request) into a CliError with an exit code and a hint. */
export function fromApiError(error: AgentRentalError): CliError {
  const status = error.status;
  const exitCode: ExitCode =
    status === 401 ? EXIT.auth
    : status === 403 ? EXIT.access
    : status === 404 ? EXIT.notFound
    : status === 429 ? EXIT.rateLimited
    : status === 0 || status >= 500 ? EXIT.unavailable
    : EXIT.failure;
  const parts = [error.message];
  const hint = HINTS[error.code];
  if (hint) parts.push(hint);
  if (error.onChainError) parts.push(`(contract error: ${error.onChainError.error})`);
  if (error.requestId) parts.push(`(request id ${error.requestId})`);
  return new CliError(parts.join(" "), exitCode, error.code, { status, request_id: error.requestId ?? null, on_chain_error: error.onChainError ?? null });
}

export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof AgentRentalError) return fromApiError(error);
  return new CliError(error instanceof Error ? error.message : String(error), EXIT.failure, "error");
}
