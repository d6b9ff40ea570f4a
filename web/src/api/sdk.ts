// The dashboard's client of the API: the SDK's, as any renter's program would make it.
import { AgentRentalClient } from "@agent-rental/sdk";

/** A client of the API for `baseUrl`, signed in with `token` when there is one. It does not retry on
 * its own: TanStack Query retries reads, and a write is the user's to repeat. */
export function dashboardClient(baseUrl: string, token?: string | null): AgentRentalClient {
  return new AgentRentalClient({ baseUrl, retries: 0, ...(token ? { token } : {}) });
}
