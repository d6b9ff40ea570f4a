// Registration-time check of a URL the service will call (a self-hosted model endpoint, a connected
// agent's entrypoint): HTTPS, no credentials, port 443, and a host that is neither an internal name nor
// an IP literal outside the public internet, in any spelling the URL parser would accept. It is purely
// syntactic: a public name can still resolve to a private address, which the runtime egress guard
// refuses at connect time. This check keeps the obvious and the obfuscated cases out of the catalogue.
// What an address is (loopback, private, metadata, ...) is one rule (addresses.ts), which the egress guard
// applies at connect time.
import { DOTTED_QUAD, ipv4Kind, ipv4Octets, ipv6Kind, isLoopbackHost, parseIpv6, type AddressKind } from "./addresses.ts";

/** Why a URL was refused: a short machine code and a sentence for the creator. */
export interface UrlProblem {
  code: "invalid_url" | "not_https" | "credentials_in_url" | "port_not_allowed" | "non_canonical_ip" | "forbidden_address" | "internal_hostname";
  message: string;
}

export interface UrlCheckOptions {
  /** Local development only: accept any port, loopback/private addresses and internal names (so the
   * local stack can register agents at 127.0.0.1), and plain `http:` for loopback hosts only
   * (127.0.0.0/8, ::1, `localhost`): every other host keeps the HTTPS rule. Credentials, cloud
   * metadata addresses and obfuscated IP spellings stay refused. Default false. */
  allowPrivateForDevelopment?: boolean;
}

/** Longest URL accepted. */
export const MAX_URL_LENGTH = 2048;

/** Suffixes that never name a public host (RFC 6761, RFC 6762, RFC 8375 and common private zones). */
const INTERNAL_SUFFIXES = ["localhost", "local", "internal", "localdomain", "home.arpa", "arpa", "test", "invalid", "example", "onion"];

/** Names of cloud metadata services, refused even in development. */
const METADATA_NAMES = ["metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal", "metadata.azure.internal"];

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The reason `url` may not be called by the service, or null when it may. */
export function checkPublicHttpsUrl(url: string, options: UrlCheckOptions = {}): string | null {
  return checkUrl(url, options)?.message ?? null;
}

/** As {@link checkPublicHttpsUrl}, with a machine code for the refusal. */
export function checkUrl(url: string, options: UrlCheckOptions = {}): UrlProblem | null {
  const found = checkUrlRules(url, options);
  if (found !== null || !/^http:/i.test(url)) return found;
  // Only the development switch lets plain http: through the rules, and only to this machine: a
  // request in clear text never crosses a network.
  const host = new URL(url).hostname;
  if (isLoopbackHost(host)) return null;
  return problem("not_https", `The URL must use https:; plain http: is accepted in local development for loopback hosts (127.0.0.1, [::1], localhost) only, not for ${host}.`);
}

function checkUrlRules(url: string, options: UrlCheckOptions): UrlProblem | null {
  const dev = options.allowPrivateForDevelopment === true;
  if (typeof url !== "string" || url.length === 0) return problem("invalid_url", "The URL is empty.");
  if (url.length > MAX_URL_LENGTH) return problem("invalid_url", `The URL is longer than ${MAX_URL_LENGTH} characters.`);
  // The URL parser silently drops tabs and newlines and trims spaces; refuse them instead.
  if (/[\u0000-\u0020\u007f-\u009f\s]/u.test(url)) return problem("invalid_url", "The URL contains whitespace or control characters.");

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return problem("invalid_url", "The URL has no scheme; use https://host/path.");
  if (scheme !== "https" && !(dev && scheme === "http")) return problem("not_https", `The URL must use https:, not ${scheme}:.`);
  // Exactly two forward slashes, then the authority: the parser would also accept backslashes or more
  // slashes, which is how parser differentials start.
  const rest = url.slice(scheme.length + 1);
  if (!rest.startsWith("//") || rest[2] === "/" || rest[2] === "\\") return problem("invalid_url", `The URL must start with ${scheme}:// followed by a host.`);
  const authority = rest.slice(2).split(/[/\\?#]/, 1)[0] ?? "";
  if (authority.includes("@")) return problem("credentials_in_url", "The URL must not contain a user name or password; send credentials another way.");
  if (authority.includes("%")) return problem("invalid_url", "The host must not be percent-encoded.");

  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return problem("invalid_url", "The URL cannot be parsed.");
  }
  if (parsed.username !== "" || parsed.password !== "") return problem("credentials_in_url", "The URL must not contain a user name or password; send credentials another way.");
  if (parsed.port !== "" && !dev) return problem("port_not_allowed", `Port ${parsed.port} is not allowed; only 443 (or no port).`);

  const host = parsed.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") return problem("invalid_url", "The URL has no host.");

  if (host.startsWith("[")) {
    const groups = parseIpv6(host.slice(1, -1));
    if (groups === null) return problem("invalid_url", "The IPv6 address cannot be parsed.");
    const kind = ipv6Kind(groups);
    return addressProblem(kind, host, dev);
  }

  // The raw host as written, to catch IPv4 spellings the parser normalizes (2130706433, 0x7f.1, 127.1).
  const rawHost = (authority.startsWith("[") ? authority : (authority.split(":", 1)[0] ?? "")).toLowerCase().replace(/\.$/, "");
  if (DOTTED_QUAD.test(host)) {
    if (rawHost !== host) return problem("non_canonical_ip", `The host "${rawHost}" is an IPv4 address in a non-standard spelling (it means ${host}); write addresses as four decimal numbers, or better, use a host name.`);
    return addressProblem(ipv4Kind(ipv4Octets(host)), host, dev);
  }

  const labels = host.split(".");
  if (host.length > 253 || !labels.every((label) => LABEL.test(label))) return problem("invalid_url", `The host "${host}" is not a valid DNS name (letters, digits and hyphens, dot-separated).`);
  if (METADATA_NAMES.includes(host)) return problem("forbidden_address", `The host "${host}" is a cloud metadata service.`);
  if (dev) return null;
  if (labels.length < 2) return problem("internal_hostname", `The host "${host}" is a single-label name, which only resolves inside a private network.`);
  const suffix = INTERNAL_SUFFIXES.find((s) => host === s || host.endsWith(`.${s}`));
  if (suffix !== undefined) return problem("internal_hostname", `The host "${host}" is under .${suffix}, which never names a public host.`);
  if (/^\d+$/.test(labels[labels.length - 1] ?? "")) return problem("invalid_url", `The host "${host}" has a numeric top-level label.`);
  return null;
}

function addressProblem(kind: AddressKind, host: string, dev: boolean): UrlProblem | null {
  if (kind === "public") return null;
  if (dev && kind !== "metadata") return null;
  const what = kind === "metadata" ? "a cloud metadata address" : `a ${kind} address`;
  return problem("forbidden_address", `The host ${host} is ${what}; the service only calls public internet hosts.`);
}

function problem(code: UrlProblem["code"], message: string): UrlProblem {
  return { code, message };
}
