// Wallet sign-in: a signed challenge is exchanged for a JWT bound to the wallet.
import { getAddress, type Address, type Hex } from "viem";
import { ApiError } from "../errors.ts";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient } from "../chain/client.ts";
import { consumeChallenge, isChallengeShape } from "./challenges.ts";
import type { JwtIssuer } from "./jwt.ts";
import { verifyWalletSignature } from "./signatures.ts";

export interface SignInDeps {
  tables: Tables;
  chain: ChainClient;
  jwt: JwtIssuer;
  service: string;
}

export interface SignInRequest {
  wallet: Address;
  challenge: string;
  signature: Hex;
}

/**
 * Verifies the signature first (so nobody can burn a challenge they cannot sign), then consumes the
 * challenge atomically (so a replay fails even inside its 60 seconds), then issues the JWT.
 */
export async function exchangeSignedChallenge(deps: SignInDeps, request: SignInRequest): Promise<{ token: string; expires_at: number }> {
  const wallet = getAddress(request.wallet);
  if (!isChallengeShape(deps.service, request.challenge)) {
    throw new ApiError("invalid_signature", "The challenge is not one this service issued; request one with GET /v1/auth/challenge.");
  }
  if (!(await verifyWalletSignature(deps.chain, wallet, request.challenge, request.signature))) {
    throw new ApiError("invalid_signature", "The signature does not verify for this wallet and challenge.");
  }
  if (!(await consumeChallenge(deps.tables, request.challenge, wallet))) {
    throw new ApiError("invalid_signature", "The challenge is unknown, expired or already used; request a new one.");
  }
  return deps.jwt.issue(wallet);
}
