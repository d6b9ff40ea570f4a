// Who is calling: the wallet an API key or a wallet-signature JWT speaks for.
import type { Address } from "viem";
import type { OAuthAccess } from "../oauth/server.ts";
import type { SpendLimit } from "../execution/money/spend-limits.ts";

export interface Principal {
  wallet: Address;
  /** How the caller authenticated: an API key, a wallet-signature JWT, or an OAuth access token an app
   * holds with the wallet's approval. */
  method: "api_key" | "jwt" | "oauth";
  /** The API key's id, for API key callers. */
  keyId?: string;
  /** For OAuth callers: the app, its approval, what the token may do and the resource it is for. Which
   * routes accept it and with which scope, each route declares (`oauthScope`). */
  oauth?: OAuthAccess;
  /** The spending limits of the key or the app the caller came through (read with it at authentication). */
  spendLimits?: SpendLimit[];
}

/** Verifies a bearer token (API key, JWT or OAuth access token) and returns the principal, or throws an
 * ApiError (`invalid_api_key`, `jwt_expired`, `invalid_token`, `unauthorized`). */
export interface Authenticator {
  authenticate(token: string): Promise<Principal>;
}
