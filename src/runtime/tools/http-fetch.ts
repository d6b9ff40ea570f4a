// http_fetch: HTTPS GET/POST to the hosts of the tool's scope, nothing else. Every hop is checked against
// the scope (a redirect off the list is refused, not followed) and connects through the run's egress
// guard, which judges the resolved address. The response body is read up to a cap and returned as text.
import { fetch as undiciFetch } from "undici";
import type { ParsedScope } from "@agent-rental/core/manifest";
import type { RunEgress } from "../egress.ts";
import { ToolInputError, type RuntimeTool } from "./types.ts";

type HttpFetchScope = Extract<ParsedScope, { tool: "http_fetch" }>;

export const HTTP_FETCH_LIMITS = {
  maxResponseBytes: 256 * 1024,
  maxRequestBodyBytes: 64 * 1024,
  maxRedirects: 3,
  maxHeaders: 20,
  timeoutMs: 20_000,
} as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers the model may not set: the transport's own, and ambient credentials. */
const FORBIDDEN_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "te", "trailer", "expect", "cookie", "proxy-authorization", "proxy-connection", "forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip"]);
/** Headers kept when a redirect leaves the origin. */
const CROSS_ORIGIN_SAFE = new Set(["accept", "accept-language", "content-language", "content-type", "user-agent"]);

interface HttpFetchInput {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

/** True when `hostname` is one of the scope's hosts (a "*." entry covers subdomains, not the name itself). */
export function hostInScope(scope: HttpFetchScope, hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return scope.hosts.some((entry) => (entry.subdomains ? host.endsWith(`.${entry.host}`) && host.length > entry.host.length + 1 : host === entry.host));
}

export function createHttpFetch(scope: HttpFetchScope, egress: RunEgress): RuntimeTool {
  const list = scope.hosts.map((h) => (h.subdomains ? `*.${h.host}` : h.host)).join(", ");

  /** Why `url` may not be called, or null. */
  const refusal = (url: URL): string | null => {
    if (url.username !== "" || url.password !== "") return "URLs with credentials are not allowed";
    if (!hostInScope(scope, url.hostname)) return `${url.hostname} is not in this tool's scope (${list})`;
    const development = egress.isDevelopmentHost(url.hostname);
    if (url.protocol !== "https:" && !(development && url.protocol === "http:")) return `only https URLs are allowed, not ${url.protocol.replace(/:$/, "")}`;
    if (url.port !== "" && url.port !== "443" && !development) return `only port 443 is allowed, not ${url.port}`;
    return null;
  };

  return {
    description: `HTTP GET or POST to these hosts only: ${list}. Returns the status, the content type and the response body as text (at most ${HTTP_FETCH_LIMITS.maxResponseBytes / 1024} KiB).`,
    inputSchema: {
      type: "object",
      properties: {
        url: { type: "string", description: "Absolute https URL on one of the allowed hosts" },
        method: { type: "string", enum: ["GET", "POST"], description: "Default GET" },
        headers: { type: "object", additionalProperties: { type: "string" }, description: "Request headers (optional)" },
        body: { type: "string", description: "Request body for POST (optional)" },
      },
      required: ["url"],
      additionalProperties: false,
    },
    async execute(raw, signal) {
      const input = parseInput(raw);
      let url: URL;
      try {
        url = new URL(input.url);
      } catch {
        throw new ToolInputError("url is not an absolute URL");
      }
      const refused = refusal(url);
      if (refused) throw new ToolInputError(refused);
      let method: string = input.method;
      let body: string | undefined = input.body;
      let headers = new Headers(input.headers);
      const timeout = AbortSignal.timeout(HTTP_FETCH_LIMITS.timeoutMs);
      const combined = AbortSignal.any([signal, timeout]);
      for (let hop = 0; ; hop++) {
        const response = await undiciFetch(url, {
          method,
          headers: [...headers],
          body: method === "GET" ? null : (body ?? null),
          redirect: "manual",
          signal: combined,
          dispatcher: egress.guard.dispatcher,
        });
        const location = response.headers.get("location");
        if (REDIRECTS.has(response.status) && location !== null) {
          await response.body?.cancel().catch(() => undefined);
          if (hop >= HTTP_FETCH_LIMITS.maxRedirects) throw new ToolInputError(`more than ${HTTP_FETCH_LIMITS.maxRedirects} redirects`);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new ToolInputError("the server redirected to an invalid location");
          }
          const off = refusal(next);
          if (off) throw new ToolInputError(`the server redirected to a URL that is not allowed: ${off}`);
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
            headers.delete("content-type");
          }
          if (next.origin !== url.origin) headers = new Headers([...headers].filter(([name]) => CROSS_ORIGIN_SAFE.has(name)));
          url = next;
          continue;
        }
        const { text, truncated } = await readCapped(response.body, HTTP_FETCH_LIMITS.maxResponseBytes);
        return {
          url: url.href,
          status: response.status,
          contentType: response.headers.get("content-type") ?? null,
          body: text,
          ...(truncated ? { truncated: true } : {}),
        };
      }
    },
  };
}

function parseInput(raw: unknown): HttpFetchInput {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new ToolInputError("the arguments must be an object {url, method?, headers?, body?}");
  const { url, method = "GET", headers = {}, body } = raw as Record<string, unknown>;
  if (typeof url !== "string" || url.length === 0 || url.length > 4096) throw new ToolInputError("url must be a string of 1 to 4096 characters");
  const upper = typeof method === "string" ? method.toUpperCase() : method;
  if (upper !== "GET" && upper !== "POST") throw new ToolInputError("method must be GET or POST");
  if (headers === null || typeof headers !== "object" || Array.isArray(headers)) throw new ToolInputError("headers must be an object of strings");
  const entries = Object.entries(headers);
  if (entries.length > HTTP_FETCH_LIMITS.maxHeaders) throw new ToolInputError(`at most ${HTTP_FETCH_LIMITS.maxHeaders} headers`);
  const clean: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (typeof value !== "string") throw new ToolInputError(`header ${name.slice(0, 40)} must be a string`);
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith("proxy-") || lower.startsWith("sec-")) throw new ToolInputError(`header ${name.slice(0, 40)} may not be set`);
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(lower) || /[\r\n\0]/.test(value)) throw new ToolInputError(`header ${name.slice(0, 40)} is malformed`);
    clean[lower] = value;
  }
  if (body !== undefined && typeof body !== "string") throw new ToolInputError("body must be a string");
  if (body !== undefined && upper === "GET") throw new ToolInputError("a GET request has no body; use POST");
  if (body !== undefined && Buffer.byteLength(body) > HTTP_FETCH_LIMITS.maxRequestBodyBytes) throw new ToolInputError(`body is larger than ${HTTP_FETCH_LIMITS.maxRequestBodyBytes / 1024} KiB`);
  return { url, method: upper, headers: clean, ...(body !== undefined ? { body } : {}) };
}

/** The body as UTF-8 text, read up to `maxBytes` (the rest is cancelled, not downloaded). */
export async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (body === null) return { text: "", truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - total;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      total += room;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    total += value.byteLength;
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks, total));
  // a multi-byte character cut at the cap decodes to U+FFFD: drop it
  return { text: truncated ? text.replace(/\uFFFD$/, "") : text, truncated };
}
