// The REST API: the SDK client for the routes it covers, and a small typed request for the creator
// and review routes it does not (same bearer, same typed errors).
import { AccessError, AgentRentalClient, AgentRentalError, ApiError, AuthError, NotFoundError, RateLimitError } from "../../sdk/src/index.ts";
import { CliError, EXIT } from "./errors.ts";
import { loadSession, requireApiUrl, type Env, type Settings } from "./settings.ts";

export interface Api {
  baseUrl: string;
  client: AgentRentalClient;
  bearer: string;
  /** The wallet of the stored session (undefined with an API key). */
  wallet: string | undefined;
  request<T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<T>;
}

/** An unauthenticated client (sign-in). */
export function publicClient(settings: Settings): AgentRentalClient {
  return new AgentRentalClient({ baseUrl: requireApiUrl(settings) });
}

/** An authenticated API: AGENTRENT_API_KEY when set, else the session stored by `agentrent login`. */
export function authenticatedApi(settings: Settings, env: Env, now = Date.now()): Api {
  const baseUrl = requireApiUrl(settings);
  let bearer: string;
  let wallet: string | undefined;
  if (env.AGENTRENT_API_KEY) {
    bearer = env.AGENTRENT_API_KEY.trim();
  } else {
    const session = loadSession(settings);
    if (!session) throw new CliError(`Not signed in to ${baseUrl}: run \`agentrent login\` (or set AGENTRENT_API_KEY).`, EXIT.auth, "not_signed_in");
    if (session.expires_at <= now / 1000 + 30) {
      throw new CliError(`Your session for ${baseUrl} expired at ${new Date(session.expires_at * 1000).toISOString()}: run \`agentrent login\` to sign in again.`, EXIT.auth, "jwt_expired");
    }
    bearer = session.token;
    wallet = session.wallet;
  }
  const client = new AgentRentalClient(env.AGENTRENT_API_KEY ? { baseUrl, apiKey: bearer } : { baseUrl, token: bearer });
  return {
    baseUrl,
    client,
    bearer,
    wallet,
    request: <T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown) => rawRequest<T>(baseUrl, bearer, method, path, body),
  };
}

async function rawRequest<T>(baseUrl: string, bearer: string, method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  } catch (error) {
    throw new AgentRentalError({ code: "connection_failed", status: 0, message: `${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}` });
  }
  const text = await response.text();
  if (response.ok) return (text === "" ? {} : JSON.parse(text)) as T;
  let envelope: { error?: { code?: string; message?: string; request_id?: string; on_chain_error?: { contract: string; error: string } } } = {};
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    envelope = {};
  }
  const e = envelope.error ?? {};
  const options = {
    code: e.code ?? `http_${response.status}`,
    status: response.status,
    message: e.message ?? (text.slice(0, 300) || `HTTP ${response.status}`),
    requestId: e.request_id ?? response.headers.get("x-request-id") ?? undefined,
    onChainError: e.on_chain_error,
  };
  switch (response.status) {
    case 401:
      throw new AuthError(options);
    case 403:
      throw new AccessError(options);
    case 404:
      throw new NotFoundError(options);
    case 429: {
      const retry = Number(response.headers.get("retry-after"));
      throw new RateLimitError({ ...options, retryAfter: Number.isFinite(retry) ? retry : undefined });
    }
    default:
      throw new ApiError(options);
  }
}
