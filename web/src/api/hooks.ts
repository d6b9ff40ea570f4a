// Server state through TanStack Query, keyed by API path. Keys of authenticated reads start with
// "auth" and the wallet, so signing out or switching accounts drops them.
import { useCallback } from "react";
import { useQuery, type UseQueryOptions } from "@tanstack/react-query";
import { apiRequest, type RequestOptions } from "./client.ts";
import { useDashboardConfig } from "../lib/context.tsx";
import { useSession } from "../auth/session.tsx";

export function useApi() {
  const config = useDashboardConfig();
  const { session } = useSession();
  const token = session && session.expiresAt * 1000 > Date.now() ? session.token : null;
  return useCallback(<T,>(path: string, options: Omit<RequestOptions, "token"> = {}) => apiRequest<T>(config.apiUrl, path, { ...options, token }), [config.apiUrl, token]);
}

/** An authenticated GET, enabled once signed in. */
export function useAuthQuery<T>(path: string | null, query?: RequestOptions["query"], options: Partial<UseQueryOptions<T>> = {}) {
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
  return useQuery<T>({ queryKey: ["public", path], queryFn: ({ signal }) => apiRequest<T>(config.apiUrl, path!, { signal }), enabled: Boolean(path), staleTime: Infinity });
}
