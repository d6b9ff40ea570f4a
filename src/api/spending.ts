// Keys and connected apps as the API shows them: each spending limit with its current period's figures.
import type { Services } from "../services.ts";
import { spendingOf } from "../execution/money/spend.ts";
import type { SpendLimit, SpendSubject } from "../execution/money/spend-limits.ts";
import { ApiError } from "../errors.ts";
import type { Principal } from "../auth/principal.ts";

/** `resource` with its spend_limits' current spending added. */
export async function withSpending<T extends { spend_limits: SpendLimit[] }>(services: Services, subject: SpendSubject, resource: T) {
  return { ...resource, spend_limits: await spendingOf(services, subject, resource.spend_limits) };
}

/** Limits are changed with a wallet sign-in only: a key or an app could otherwise lift its own limit. */
export function requireWalletSignIn(principal: Principal, what: string): void {
  if (principal.method !== "jwt") {
    throw new ApiError("forbidden", `Changing ${what}'s spending limits needs a wallet sign-in (a JWT from POST /v1/auth/token): an API key or an app could otherwise lift its own limit.`);
  }
}
