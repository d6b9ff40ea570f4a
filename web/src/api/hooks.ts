// The dashboard talks to the API through the SDK (@agent-rental/sdk): the client renters use, with its
// typed errors and exact wei amounts (bigint). Server state goes through TanStack Query hooks keyed by
// the API path; keys of authenticated reads start with "auth" and the wallet, so signing out or
// switching accounts drops them.
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

/** A request to any route by its path, through the client. */
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
