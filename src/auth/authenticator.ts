// Verifies bearer tokens: API keys against the keys table (read on every request, so a revoked key
// fails on its very next request), JWTs by signature and expiry, and OAuth access tokens against the
// authorization server's records (read on every request too: a revoked app fails at once).
import { ApiError } from "../errors.ts";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { API_KEY_SHAPE, findApiKey, touchApiKey } from "./api-keys.ts";
import { looksLikeJwt, type JwtIssuer } from "./jwt.ts";
import type { Authenticator, Principal } from "./principal.ts";
import type { OAuthServer } from "../oauth/server.ts";

/** An OAuth access token of this service: 256 random bits, base64url (oidc-provider's opaque format). */
const OAUTH_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function createAuthenticator(deps: { tables: Tables; jwt: JwtIssuer; keyPrefix: string; oauth?: OAuthServer }): Authenticator {
  return {
    async authenticate(token: string): Promise<Principal> {
      if (token.startsWith("svc_")) {
        if (!API_KEY_SHAPE.test(token) || !token.startsWith(deps.keyPrefix)) {
          throw new ApiError("invalid_api_key", "The API key is not valid for this network.");
        }
        const record = await findApiKey(deps.tables, token);
        if (!record || record.revokedAt) throw new ApiError("invalid_api_key", "The API key is invalid or has been revoked.");
        touchApiKey(deps.tables, token, record);
        return { wallet: record.wallet, method: "api_key", keyId: record.keyId, ...(record.spendLimits.length > 0 ? { spendLimits: record.spendLimits } : {}) };
      }
      if (looksLikeJwt(token)) {
        const { wallet } = await deps.jwt.verify(token);
        return { wallet, method: "jwt" };
      }
      if (deps.oauth && OAUTH_TOKEN_SHAPE.test(token)) {
        const access = await deps.oauth.authenticate(token);
        if (!access) throw new ApiError("invalid_token", "The access token is unknown, expired or revoked: sign in again from the app.");
        return { wallet: access.wallet, method: "oauth", oauth: access, ...(access.spendLimits.length > 0 ? { spendLimits: access.spendLimits } : {}) };
      }
      throw new ApiError("unauthorized", "The bearer token is neither an API key, a JWT nor an access token of this service.");
    },
  };
}
