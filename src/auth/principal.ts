// Who is calling: the wallet an API key or a wallet-signature JWT speaks for.
import type { Address } from "viem";

export interface Principal {
  wallet: Address;
  /** How the caller authenticated. */
  method: "api_key" | "jwt";
  /** The API key's id, for API key callers. */
  keyId?: string;
}

/** Verifies a bearer token (API key or JWT) and returns the principal, or throws an ApiError
 * (`invalid_api_key`, `jwt_expired`, `unauthorized`). */
export interface Authenticator {
  authenticate(token: string): Promise<Principal>;
}
