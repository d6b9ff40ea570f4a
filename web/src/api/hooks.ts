// The dashboard talks to the API through the SDK (@agent-rental/sdk): the client renters use, its typed
// methods, its typed errors and exact wei amounts (bigint). Server state goes through TanStack Query
// hooks keyed by the API path the SDK method calls; keys of authenticated reads start with "auth" and
// the wallet, so signing out or switching accounts drops them.
import { useCallback, useMemo } from "react";
import { useQuery, type UseQueryOptions } from "@tanstack/react-query";
import type { AgentRentalClient } from "@agent-rental/sdk";
import { dashboardClient } from "./sdk.ts";
import { useDashboardConfig } from "../lib/context.tsx";
import { useSession } from "../auth/session.tsx";

export type Query = Record<string, string | number | undefined | null>;

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: unknown;
  query?: Query;
  signal?: AbortSignal;
}

/** The SDK's client with the session's token (none once it has expired). */
export function useClient(): AgentRentalClient {
  const config = useDashboardConfig();
  const { session } = useSession();
  const token = session && session.expiresAt * 1000 > Date.now() ? session.token : null;
  return useMemo(() => dashboardClient(config.apiUrl, token), [config.apiUrl, token]);
}

/** Empty filters are left out of the query string, as a form's empty field means "any". */
function compact(query: Query | undefined): Record<string, string | number> | undefined {
  if (!query) return undefined;
  const out: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") out[name] = value;
  return out;
}

/** An authenticated read through one of the SDK's methods, enabled once signed in. `key` names it in
 * the cache: the API path the method calls (a write invalidates the reads of a path), then its query
 * parameters if any, as `useAuthQuery` keys its reads; null while it cannot be read yet.
 *
 * @example
 * const apps = useSdkQuery(["/v1/oauth/apps"], (client) => client.apps.list());
 */
export function useSdkQuery<T>(key: readonly unknown[] | null, read: (client: AgentRentalClient, signal: AbortSignal) => Promise<T>, options: Partial<UseQueryOptions<T>> = {}) {
  const client = useClient();
  const { session } = useSession();
  const { enabled = true, ...rest } = options;
  return useQuery<T>({
    queryKey: ["auth", session?.wallet, ...(key ?? [])],
    queryFn: ({ signal }) => read(client, signal),
    ...rest,
    enabled: Boolean(session && key) && enabled,
  } as UseQueryOptions<T>);
}

/** A request to any route by its path, through the client (for a route the SDK has no method for). */
export function useApi() {
  const client = useClient();
  return useCallback(
    <T,>(path: string, options: RequestOptions = {}) =>
      client.request<T>(options.method ?? "GET", path, {
        ...(options.query ? { query: compact(options.query) } : {}),
        ...(options.body === undefined ? {} : { body: options.body }),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    [client],
  );
}

/** An authenticated GET, enabled once signed in. */
export function useAuthQuery<T>(path: string | null, query?: Query, options: Partial<UseQueryOptions<T>> = {}) {
  const api = useApi();
  const { session } = useSession();
  const { enabled = true, ...rest } = options;
  return useQuery<T>({
    queryKey: ["auth", session?.wallet, path, query ?? {}],
    queryFn: ({ signal }) => api<T>(path!, { query, signal }),
    ...rest,
    enabled: Boolean(session && path) && enabled,
  } as UseQueryOptions<T>);
}

/** A public GET (no token). */
export function usePublicQuery<T>(path: string | null) {
  const config = useDashboardConfig();
  const client = useMemo(() => dashboardClient(config.apiUrl), [config.apiUrl]);
  return useQuery<T>({ queryKey: ["public", path], queryFn: ({ signal }) => client.request<T>("GET", path!, { signal }), enabled: Boolean(path), staleTime: Infinity });
}
