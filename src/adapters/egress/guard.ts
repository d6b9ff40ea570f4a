// The egress guard: the one way the service opens an outbound connection (tools, connected-agent
// webhooks, self-hosted model endpoints). It resolves the host inside the connector, on every new
// connection, checks every address the resolver returned, and lets the socket connect only to those
// checked addresses; so a name that answered "public" to an earlier check and "private" now (DNS
// rebinding) is refused at the moment that counts. Redirects are never followed by the HTTP client:
// the guard follows them itself, re-checking each hop. Rules and decisions: docs/design/egress.md.
import dns from "node:dns";
import net from "node:net";
import tls from "node:tls";
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher, type RequestInit as UndiciRequestInit } from "undici";
import { ipv4Kind, ipv6Kind, isLoopbackHost, parseIpv6, type AddressKind } from "@agent-rental/core/addresses";

export type EgressRefusalReason = "forbidden_address" | "scheme_not_allowed" | "too_many_redirects" | "response_too_large" | "timeout" | "dns_failure";

/** Why the guard refused or cut a call. The message names at most the host, the address and its kind:
 * never a path, a query, a request header or a body, which may carry secrets. */
export class EgressRefusedError extends Error {
  override readonly name = "EgressRefusedError";
  constructor(
    readonly reason: EgressRefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** The resolver the guard calls (the shape of `dns.lookup` with `all: true`); injectable for tests. */
export type EgressLookup = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

export interface EgressGuardOptions {
  /** Local development only: private, loopback, link-local, unique-local and CGNAT addresses are
   * allowed for every host, and `http:` for loopback hosts (127.0.0.0/8, ::1, `localhost`) only, so the
   * HTTPS rule holds for every real host. Metadata addresses stay refused. Default false. */
  allowPrivate?: boolean;
  /** Local development only: host names or IP literals (as written in the URL) that may resolve to
   * non-public addresses and may be called over `http:`, e.g. `127.0.0.1` for a local model server.
   * Metadata addresses stay refused. */
  allowHosts?: string[];
  /** Resolver, `dns.lookup` by default. */
  lookup?: EgressLookup;
  /** Extra trusted CA certificates (PEM) for HTTPS, for self-hosted endpoints with a private CA and for
   * tests; trusted in addition to Node's bundled roots. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** TCP + TLS connect timeout per connection. Default 10 s. */
  connectTimeoutMs?: number;
  /** Overall time of a call (every hop, the headers and the whole body), unless the call sets its own.
   * Default 30 s. */
  timeoutMs?: number;
  /** Largest response body read, counted on the stream. Default 10 MiB. */
  maxResponseBytes?: number;
}

export type EgressRequestInit = RequestInit & {
  /** Redirects the guard follows, each re-checked. Default 3; 0 refuses every redirect. */
  maxRedirects?: number;
  /** Overall time of this call, including reading the body. */
  timeoutMs?: number;
};

export interface EgressGuard {
  /** `fetch`, with every hop checked, the body counted and the whole call timed. Refusals reject with
   * {@link EgressRefusedError}; other network failures reject as `fetch` does. */
  fetch(url: string | URL, init?: EgressRequestInit): Promise<Response>;
  /** The undici dispatcher whose connector enforces the address and scheme rules on every connection;
   * safe to hand to code that takes a dispatcher (redirects it follows are still checked per connection). */
  dispatcher: Dispatcher;
}

export const DEFAULT_MAX_REDIRECTS = 3;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers kept when a redirect leaves the origin: anything else (Authorization, API keys, cookies,
 * signatures) stays with the origin the caller chose. */
const CROSS_ORIGIN_SAFE_HEADERS = new Set(["accept", "accept-language", "content-language", "content-type", "user-agent"]);
const DNS_ERROR_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "ENODATA", "ESERVFAIL", "ETIMEOUT", "ECONNREFUSED", "EREFUSED", "EBADNAME", "ENONAME"]);

/** The kind of an IP address string (IPv4, IPv6, IPv4-mapped, with or without a zone), or null when it
 * is not an IP address. Classification is the registration check's. */
export function classifyAddress(address: string): AddressKind | null {
  const family = net.isIP(address);
  if (family === 4) return ipv4Kind(address.split(".").map(Number));
  if (family === 6) {
    const groups = parseIpv6(address);
    return groups === null ? "reserved" : ipv6Kind(groups);
  }
  return null;
}

export function createEgressGuard(options: EgressGuardOptions = {}): EgressGuard {
  const allowPrivate = options.allowPrivate === true;
  const allowHosts = new Set((options.allowHosts ?? []).map(normalizeHost));
  const resolve: EgressLookup = options.lookup ?? dns.lookup;
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  const hostAllowed = (hostname: string) => allowHosts.has(normalizeHost(hostname));

  /** The refusal for connecting to `address` on behalf of `hostname`, or null. */
  const addressRefusal = (hostname: string, address: string): EgressRefusedError | null => {
    const kind = classifyAddress(address) ?? "reserved";
    if (kind === "public") return null;
    if (kind !== "metadata" && (allowPrivate || hostAllowed(hostname))) return null;
    const what = kind === "metadata" ? "a cloud metadata address" : `a ${kind} address`;
    const via = normalizeHost(hostname) === normalizeHost(address) ? "" : ` (resolved from ${safeHostForMessage(hostname)})`;
    return new EgressRefusedError("forbidden_address", `Egress refused: ${address}${via} is ${what}.`);
  };

  const schemeRefusal = (protocol: string, hostname: string): EgressRefusedError | null => {
    if (protocol === "https:") return null;
    if (protocol === "http:" && (hostAllowed(hostname) || (allowPrivate && isLoopbackName(hostname)))) return null;
    return new EgressRefusedError("scheme_not_allowed", `Egress refused: ${protocol.replace(/:$/, "") || "this"} scheme is not allowed for ${safeHostForMessage(hostname)}; use https:.`);
  };

  /** The lookup handed to net/tls.connect: resolves once for this connection and answers only when
   * every address is allowed (a name with any forbidden answer is refused as a whole). */
  const checkedLookup = (hostname: string, lookupOptions: dns.LookupOptions, callback: (...args: unknown[]) => void): void => {
    const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
    const all: dns.LookupAllOptions = { all: true, family, ...(lookupOptions.hints === undefined ? {} : { hints: lookupOptions.hints }) };
    resolve(hostname, all, (err, addresses) => {
      if (err !== null || !Array.isArray(addresses) || addresses.length === 0) {
        const code = err?.code ?? "ENOTFOUND";
        callback(new EgressRefusedError("dns_failure", `Egress refused: ${safeHostForMessage(hostname)} did not resolve (${DNS_ERROR_CODES.has(code) ? code : "lookup failed"}).`));
        return;
      }
      for (const { address } of addresses) {
        const refusal = addressRefusal(hostname, address);
        if (refusal !== null) return callback(refusal);
      }
      if (lookupOptions.all === true) callback(null, addresses);
      else callback(null, addresses[0]?.address, addresses[0]?.family);
    });
  };

  const baseConnect = buildConnector({
    timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    lookup: checkedLookup as unknown as net.LookupFunction,
    ...(options.ca === undefined ? {} : { ca: [...tls.rootCertificates, ...(Array.isArray(options.ca) ? options.ca : [options.ca])] }),
  });

  // Node skips `lookup` for IP literals, so they are judged here, before any socket exists.
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const { protocol, hostname } = connectOptions;
    const refusal = schemeRefusal(protocol, hostname) ?? (net.isIP(hostname) !== 0 ? addressRefusal(hostname, hostname) : null);
    if (refusal !== null) {
      callback(refusal, null);
      return;
    }
    baseConnect(connectOptions, callback);
  };

  const dispatcher = new Agent({ connect });

  async function guardedFetch(input: string | URL, init: EgressRequestInit = {}): Promise<Response> {
    const { maxRedirects = DEFAULT_MAX_REDIRECTS, timeoutMs = defaultTimeoutMs, signal: callerSignal, redirect: _ignored, ...rest } = init;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new EgressRefusedError("timeout", `Egress call exceeded ${timeoutMs} ms.`)), timeoutMs);
    timer.unref();
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
    const done = () => clearTimeout(timer);

    let url = new URL(input);
    let method = (rest.method ?? "GET").toUpperCase();
    let body = rest.body ?? null;
    const headers = new Headers(rest.headers);
    try {
      for (let hop = 0; ; hop++) {
        // The connector enforces both rules too; checking here first gives the clean error early.
        const refusal = schemeRefusal(url.protocol, url.hostname) ?? (isIpLiteral(url.hostname) ? addressRefusal(bare(url.hostname), bare(url.hostname)) : null);
        if (refusal !== null) throw refusal;

        const response = await undiciFetch(url, { ...(rest as UndiciRequestInit), method, body: body as UndiciRequestInit["body"], headers: [...headers], redirect: "manual", signal, dispatcher });
        const location = response.headers.get("location");
        if (!REDIRECT_STATUSES.has(response.status) || location === null) return wrapResponse(response, url, hop > 0, maxResponseBytes, done);

        await response.body?.cancel().catch(() => undefined);
        if (hop >= maxRedirects) throw new EgressRefusedError("too_many_redirects", `Egress refused: more than ${maxRedirects} redirect(s) from ${safeHostForMessage(new URL(input).hostname)}.`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new EgressRefusedError("scheme_not_allowed", `Egress refused: ${safeHostForMessage(url.hostname)} redirected to an invalid location.`);
        }
        if (next.protocol !== "https:" && next.protocol !== "http:") throw new EgressRefusedError("scheme_not_allowed", `Egress refused: redirect to the ${next.protocol.replace(/:$/, "")} scheme.`);
        // Fetch's rules: 303 (and 301/302 after POST) become a GET without a body.
        if ((response.status === 303 && method !== "HEAD") || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = "GET";
          body = null;
          for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(name);
        } else if (body !== null && isOneShotBody(body)) {
          throw new TypeError("A streamed request body cannot be sent again after a 307/308 redirect.");
        }
        if (next.origin !== url.origin) {
          for (const name of [...headers.keys()]) if (!CROSS_ORIGIN_SAFE_HEADERS.has(name)) headers.delete(name);
        }
        url = next;
      }
    } catch (err) {
      done();
      throw translateError(err, timeout.signal);
    }
  }

  return { fetch: guardedFetch, dispatcher };
}

/** The response with its body counted against the cap and the overall timer stopped when the body
 * ends, errors or is cancelled. */
function wrapResponse(upstream: Awaited<ReturnType<typeof undiciFetch>>, url: URL, redirected: boolean, maxBytes: number, done: () => void): Response {
  const declared = Number(upstream.headers.get("content-length") ?? NaN);
  const tooLarge = () => new EgressRefusedError("response_too_large", `Egress response from ${safeHostForMessage(url.hostname)} exceeded ${maxBytes} bytes.`);
  if (Number.isFinite(declared) && declared > maxBytes) {
    done();
    void upstream.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  let body: ReadableStream<Uint8Array> | null = null;
  if (upstream.body === null) done();
  else {
    const reader = upstream.body.getReader();
    let total = 0;
    body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done: ended, value } = await reader.read();
          if (ended) {
            done();
            controller.close();
            return;
          }
          total += value.byteLength;
          if (total > maxBytes) {
            const err = tooLarge();
            done();
            controller.error(err);
            await reader.cancel(err).catch(() => undefined);
            return;
          }
          controller.enqueue(value);
        } catch (err) {
          done();
          controller.error(translateError(err, undefined));
        }
      },
      async cancel(reason) {
        done();
        await reader.cancel(reason).catch(() => undefined);
      },
    });
  }
  const response = new Response(body, { status: upstream.status, statusText: upstream.statusText, headers: [...upstream.headers] });
  Object.defineProperty(response, "url", { value: url.href });
  Object.defineProperty(response, "redirected", { value: redirected });
  return response;
}

/** The guard's own error when one is in the cause chain (undici wraps connector errors in
 * `TypeError("fetch failed")`), a timeout when the timer fired, else the error unchanged. */
function translateError(err: unknown, timeoutSignal: AbortSignal | undefined): unknown {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === undefined || e === null || seen.has(e)) continue;
    seen.add(e);
    if (e instanceof EgressRefusedError) return e;
    if (e instanceof Error) {
      if ((e as { code?: unknown }).code === "UND_ERR_CONNECT_TIMEOUT") return new EgressRefusedError("timeout", "Egress connection timed out.");
      queue.push(e.cause);
      if (e instanceof AggregateError) queue.push(...e.errors);
    }
  }
  if (timeoutSignal?.aborted && timeoutSignal.reason instanceof EgressRefusedError) return timeoutSignal.reason;
  return err;
}

/** A loopback host as written in a URL or handed to the connector (IPv6 with or without brackets). */
function isLoopbackName(hostname: string): boolean {
  const host = bare(hostname);
  return isLoopbackHost(net.isIP(host) === 6 ? `[${host}]` : host);
}

function isOneShotBody(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body instanceof ReadableStream || Symbol.asyncIterator in body);
}

function isIpLiteral(hostname: string): boolean {
  return net.isIP(bare(hostname)) !== 0;
}

function bare(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

/** Lower case, no brackets, no trailing dot; IPv6 literals in the URL parser's canonical spelling. */
function normalizeHost(host: string): string {
  const h = bare(host.trim().toLowerCase()).replace(/\.$/, "");
  if (net.isIP(h) === 6) {
    try {
      return bare(new URL(`http://[${h}]/`).hostname);
    } catch {
      return h;
    }
  }
  return h;
}

/** A host name fit for an error message: DNS characters only, bounded. */
function safeHostForMessage(host: string): string {
  return bare(host).replace(/[^a-zA-Z0-9.:_-]/g, "?").slice(0, 253);
}

/** Eight 16-bit groups of an IPv6 address as the resolver or the URL parser prints it: at most one
 * "::", an optional trailing dotted quad (::ffff:127.0.0.1) and an optional zone (fe80::1%eth0). */
