// A small typed client for the REST API, keyed by path. The SDK's client is Node-first today; the
// dashboard needs only fetch, the error envelope and the bearer token, so it keeps its own.
export interface ApiErrorBody {
  code: string;
  message: string;
  status: number;
  request_id?: string;
  on_chain_error?: { contract: string; error: string };
}

/** An API error as the envelope gives it; `requestId` is what a user quotes to support. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly code: string;
  readonly status: number;
  readonly requestId: string | null;
  readonly onChainError: ApiErrorBody["on_chain_error"] | null;
  constructor(body: ApiErrorBody, requestId: string | null) {
    super(body.message);
    this.code = body.code;
    this.status = body.status;
    this.requestId = body.request_id ?? requestId;
    this.onChainError = body.on_chain_error ?? null;
  }
}

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  body?: unknown;
  token?: string | null;
  query?: Record<string, string | number | undefined | null>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function apiUrl(base: string, path: string, query?: RequestOptions["query"]): string {
  const url = new URL(base + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
  return url.toString();
}

export async function toApiError(res: Response): Promise<ApiError> {
  const requestId = res.headers.get("x-request-id");
  try {
    const json = (await res.json()) as { error?: ApiErrorBody };
    if (json.error?.code) return new ApiError(json.error, requestId);
  } catch {
    // Not the envelope (a proxy's page, for example): described below.
  }
  return new ApiError({ code: "http_error", message: `The API answered ${res.status} ${res.statusText}.`, status: res.status }, requestId);
}

export async function apiRequest<T>(base: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let res: Response;
  try {
    res = await fetch(apiUrl(base, path, options.query), {
      method: options.method ?? "GET",
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError({ code: "network_error", message: "Could not reach the API. Check your connection and try again.", status: 0 }, null);
  }
  if (!res.ok) throw await toApiError(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}
