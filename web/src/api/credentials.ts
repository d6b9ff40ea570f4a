// The wallet's rental credentials, every page of them: GET /v1/credentials answers at most 100 at a
// time (newest purchase first), and a wallet may hold more.
import { useQuery } from "@tanstack/react-query";
import type { AgentRentalClient, Credential, CredentialListParams } from "@agent-rental/sdk";
import { useClient } from "./hooks.ts";
import { useSession } from "../auth/session.tsx";

/** The API's largest page of credentials. */
export const CREDENTIALS_PAGE_MAX = 100;

type CredentialPage = { credentials: Credential[]; total: number };

/** Every credential of the signed-in wallet (optionally of one status), page by page. */
export async function fetchAllCredentials(client: AgentRentalClient, options: { status?: CredentialListParams["status"]; signal?: AbortSignal } = {}): Promise<CredentialPage> {
  const all: Credential[] = [];
  for (let offset = 0; ; offset += CREDENTIALS_PAGE_MAX) {
    const page = await client.credentials.list({ limit: CREDENTIALS_PAGE_MAX, offset, ...(options.status ? { status: options.status } : {}) }, options.signal ? { signal: options.signal } : {});
    all.push(...page.credentials);
    // A credential bought between two pages shifts the rest by one: the de-duplication below keeps
    // each once, and the loop ends on a short page whatever the total says.
    if (page.credentials.length < CREDENTIALS_PAGE_MAX || offset + CREDENTIALS_PAGE_MAX >= page.total) break;
  }
  const byListing = new Map<string, Credential>();
  for (const c of all) if (!byListing.has(c.listing_id)) byListing.set(c.listing_id, c);
  return { credentials: [...byListing.values()], total: byListing.size };
}

/** The credential of one listing from the list (it carries the expiry), or null when the API lists none. */
export async function findCredential(client: AgentRentalClient, listingId: string): Promise<Credential | null> {
  return (await fetchAllCredentials(client)).credentials.find((c) => c.listing_id === listingId) ?? null;
}

/** Every credential of the signed-in wallet, under the same key prefix as the other authenticated reads. */
export function useAllCredentials() {
  const client = useClient();
  const { session } = useSession();
  return useQuery({
    queryKey: ["auth", session?.wallet, "/v1/credentials", { all: true }],
    queryFn: ({ signal }) => fetchAllCredentials(client, { signal }),
    enabled: Boolean(session),
  });
}
