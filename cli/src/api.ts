// The REST API, through the SDK client (its authentication, retries and typed errors).
import { AgentRentalClient } from "@agent-rental/sdk";
import { CliError, EXIT } from "./errors.ts";
import { loadSession, requireApiUrl, type Env, type Settings } from "./settings.ts";

export interface Api {
  baseUrl: string;
  client: AgentRentalClient;
  bearer: string;
  /** The wallet of the stored session (undefined with an API key). */
  wallet: string | undefined;
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
  };
}
