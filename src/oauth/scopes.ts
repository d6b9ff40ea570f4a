// What an app signed in with OAuth may do, in scopes the person approving reads in words. They are
// narrow on purpose: reading the catalogue, reading the renter's rentals and running tasks are apart,
// and nothing an OAuth token can hold creates API keys, rents, rates or changes listings (those routes
// take no OAuth token at all: src/api/route.ts `oauthScope`).

/** Every scope the authorization server grants, in the order the consent page lists them. */
export const OAUTH_SCOPES = ["tasks:run", "credentials:read", "listings:read"] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** Each scope as the consent page and the Connected apps page say it. */
export const OAUTH_SCOPE_WORDS: { readonly [S in OAuthScope]: string } = {
  "tasks:run": "Run tasks on the agents you rent, paid from your rentals as your own runs are, and read those runs",
  "credentials:read": "See your rentals: which agents you rent, on which rental model, and their status",
  "listings:read": "Search and read the public catalogue of agents",
};

export function isOAuthScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

/** The known scopes of a space-separated scope string, in the canonical order (unknown ones dropped). */
export function scopesOf(scope: string | undefined): OAuthScope[] {
  const asked = new Set((scope ?? "").split(" ").filter(Boolean));
  return OAUTH_SCOPES.filter((known) => asked.has(known));
}

/** Scopes asked for when an app names none it may have: running tasks, which is what connecting an
 * agent is for (docs/reference/oauth.md). */
export const DEFAULT_SCOPES: readonly OAuthScope[] = ["tasks:run"];

/** The scopes an authorization request asks for: its known ones, or the default when it names none. */
export function askedScopes(scope: string | undefined): OAuthScope[] {
  const asked = scopesOf(scope);
  return asked.length > 0 ? asked : [...DEFAULT_SCOPES];
}
