// web_search: queries the service's search provider (the Brave Search web API or a SearXNG instance)
// through the run's egress guard and returns titles, URLs and snippets. The provider's key goes in the
// request header only; the model sees the results, never the key or the endpoint.
import type { ParsedScope } from "@agent-rental/core/manifest";
import type { RunEgress } from "../egress.ts";
import type { AgentSearchProvider } from "../payload.ts";
import { readCapped } from "./http-fetch.ts";
import { ToolInputError, type RuntimeTool } from "./types.ts";

type WebSearchScope = Extract<ParsedScope, { tool: "web_search" }>;

export const WEB_SEARCH_LIMITS = {
  maxQueryChars: 400,
  defaultResults: 5,
  maxResults: 10,
  maxResponseBytes: 2 * 1024 * 1024,
  maxSnippetChars: 500,
  timeoutMs: 15_000,
} as const;

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export function createWebSearch(_scope: WebSearchScope, provider: AgentSearchProvider, egress: RunEgress): RuntimeTool {
  return {
    description: `Search the public web. Returns up to ${WEB_SEARCH_LIMITS.maxResults} results, each {title, url, snippet}.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "The search query" },
        count: { type: "integer", minimum: 1, maximum: WEB_SEARCH_LIMITS.maxResults, description: `Results wanted (default ${WEB_SEARCH_LIMITS.defaultResults})` },
      },
      required: ["query"],
      additionalProperties: false,
    },
    async execute(raw, signal) {
      const args = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
      const query = typeof args.query === "string" ? args.query.trim() : "";
      if (query === "" || query.length > WEB_SEARCH_LIMITS.maxQueryChars) throw new ToolInputError(`query must be 1 to ${WEB_SEARCH_LIMITS.maxQueryChars} characters`);
      const count = args.count === undefined ? WEB_SEARCH_LIMITS.defaultResults : args.count;
      if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > WEB_SEARCH_LIMITS.maxResults) throw new ToolInputError(`count must be 1 to ${WEB_SEARCH_LIMITS.maxResults}`);
      const results = await search(provider, egress, query, count as number, signal);
      return { query, results };
    },
  };
}

async function search(provider: AgentSearchProvider, egress: RunEgress, query: string, count: number, signal: AbortSignal): Promise<SearchResult[]> {
  const url = new URL(provider.url);
  const headers: Record<string, string> = { accept: "application/json" };
  if (provider.kind === "brave") {
    url.searchParams.set("q", query);
    url.searchParams.set("count", String(count));
    if (provider.apiKey) headers["x-subscription-token"] = provider.apiKey;
  } else {
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
  }
  let response: Response;
  try {
    response = await egress.guard.fetch(url, { headers, signal, maxRedirects: 0, timeoutMs: WEB_SEARCH_LIMITS.timeoutMs });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ToolInputError("the search provider could not be reached");
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ToolInputError(response.status === 429 ? "the search provider is rate limiting; try again later" : `the search provider answered ${response.status}`);
  }
  const { text, truncated } = await readCapped(response.body, WEB_SEARCH_LIMITS.maxResponseBytes);
  if (truncated) throw new ToolInputError("the search provider's answer was too large");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ToolInputError("the search provider's answer was not JSON");
  }
  const items = provider.kind === "brave" ? (body as { web?: { results?: unknown } })?.web?.results : (body as { results?: unknown })?.results;
  if (!Array.isArray(items)) return [];
  const results: SearchResult[] = [];
  for (const item of items) {
    if (results.length >= count) break;
    if (item === null || typeof item !== "object") continue;
    const { title, url: link, description, content } = item as Record<string, unknown>;
    if (typeof link !== "string" || !/^https?:\/\//i.test(link)) continue;
    const snippet = provider.kind === "brave" ? description : content;
    results.push({ title: plain(title), url: link, snippet: plain(snippet).slice(0, WEB_SEARCH_LIMITS.maxSnippetChars) });
  }
  return results;
}

/** Text without markup (providers highlight matches with <strong>) and with entities decoded. */
function plain(value: unknown): string {
  if (typeof value !== "string") return "";
  return value
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", nbsp: " " })[name] ?? "")
    .replace(/\s+/g, " ")
    .trim();
}
