// How a failed run is described: one short sentence that says why, built from what the error is (an
// HTTP status, a cut stream, an egress refusal, the deadline), never from what the provider echoed back.
// Provider errors carry the request body and may quote the key; none of that reaches the message, and
// every message is scrubbed of the run's secrets before it leaves the runtime.

/** An error whose message is already fit for the run's caller (our own wording, no secrets). */
export class AgentRunError extends Error {
  override readonly name = "AgentRunError";
}

/** Every way the agent's model can be out of reach (refused by the egress rules, a name that does not
 * resolve, a refused or dropped connection) reads the same to the renter: nothing of its address. */
export const MODEL_UNREACHABLE = "the agent's model could not be reached";

/** The abort reason when the run's deadline passes. */
export class RunDeadlineError extends AgentRunError {
  constructor() {
    super("the run reached its time limit");
  }
}

const STATUS_REASONS: Record<number, string> = {
  400: "bad request",
  401: "the key was refused",
  402: "payment required",
  403: "the key was refused",
  404: "model or endpoint not found",
  408: "request timeout",
  409: "conflict",
  413: "request too large",
  422: "unprocessable request",
  429: "rate limited",
  500: "server error",
  502: "bad gateway",
  503: "unavailable",
  504: "gateway timeout",
  529: "overloaded",
};

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  statusCode?: unknown;
  cause?: unknown;
  lastError?: unknown;
  errors?: unknown;
  reason?: unknown;
}

/** Every error in the chain (`cause`, a retry's `lastError`, an aggregate's `errors`), outermost first. */
function chain(error: unknown): ErrorLike[] {
  const seen = new Set<unknown>();
  const out: ErrorLike[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && out.length < 32) {
    const e = queue.shift();
    if (e === null || typeof e !== "object" || seen.has(e)) continue;
    seen.add(e);
    const like = e as ErrorLike;
    out.push(like);
    queue.push(like.lastError, like.cause);
    if (Array.isArray(like.errors)) queue.push(...like.errors);
  }
  return out;
}

const nameOf = (e: ErrorLike) => (typeof e.name === "string" ? e.name : "");
const messageOf = (e: ErrorLike) => (typeof e.message === "string" ? e.message : "");

/** The one-sentence reason a run failed (without secrets only if the caller scrubs it: see {@link scrub}). */
export function describeFailure(error: unknown): string {
  const errors = chain(error);
  const own = errors.find((e) => e instanceof AgentRunError);
  if (own) return messageOf(own);

  // The renter learns only that the model was out of reach: an egress refusal names the host, its
  // address and what kind of address it is, which for a self-hosted model is the creator's private
  // infrastructure.
  if (errors.some((e) => nameOf(e) === "EgressRefusedError")) return MODEL_UNREACHABLE;

  const retry = errors.find((e) => nameOf(e) === "AI_RetryError");
  const attempts = retry ? /Failed after (\d+) attempts/.exec(messageOf(retry))?.[1] : undefined;
  const after = attempts ? ` after ${attempts} attempts` : "";

  if (errors.some((e) => messageOf(e) === "terminated" || e.code === "UND_ERR_SOCKET" || nameOf(e) === "SocketError")) return "the model stream was cut off";

  const apiCall = errors.find((e) => nameOf(e) === "AI_APICallError" && typeof e.statusCode === "number" && e.statusCode >= 400);
  if (apiCall) {
    const status = apiCall.statusCode as number;
    const reason = STATUS_REASONS[status] ?? (status >= 500 ? "server error" : "request refused");
    return `the model provider answered ${status} (${reason})${after}`;
  }

  const network = errors.some((e) => typeof e.code === "string" && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|UND_ERR_CONNECT_TIMEOUT)$/.test(e.code));
  if (network || errors.some((e) => nameOf(e) === "AI_APICallError")) return MODEL_UNREACHABLE;

  if (errors.some((e) => ["AI_NoObjectGeneratedError", "AI_JSONParseError", "AI_TypeValidationError"].includes(nameOf(e)))) {
    return "the model's answer is not JSON matching the output schema";
  }
  if (errors.some((e) => nameOf(e) === "AI_NoOutputGeneratedError")) return "the model produced no answer";
  if (errors.some((e) => nameOf(e) === "AI_InvalidResponseDataError")) return "the model provider sent a response that could not be read";
  if (errors.some((e) => nameOf(e) === "AbortError")) return "the run was aborted";
  const first = errors[0];
  return `the agent run failed unexpectedly${first && nameOf(first) ? ` (${nameOf(first).replace(/[^\w.-]/g, "").slice(0, 60)})` : ""}`;
}

/** `text` with every secret replaced, and also any run of 8+ characters of a secret (providers quote
 * key prefixes and suffixes in their error bodies). */
export function scrub(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.length < 4) continue;
    out = out.split(secret).join("[redacted]");
    if (secret.length >= 12) {
      for (let start = 0; start + 8 <= secret.length; start++) {
        const piece = secret.slice(start, start + 8);
        if (out.includes(piece)) out = out.split(piece).join("[redacted]");
      }
    }
  }
  return out;
}
