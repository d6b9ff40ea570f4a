// Registration-time check of a URL the service will call (a self-hosted model endpoint, a connected
// agent's entrypoint): HTTPS, no credentials, port 443, and a host that is neither an internal name nor
// an IP literal outside the public internet, in any spelling the URL parser would accept. It is purely
// syntactic: a public name can still resolve to a private address, which the runtime egress guard
// refuses at connect time. This check keeps the obvious and the obfuscated cases out of the catalogue.

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
const DOTTED_QUAD = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

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

/** Whether `host` (as the URL parser serializes it, lower case) is this machine: 127.0.0.0/8, [::1],
 * an IPv4-mapped loopback address, `localhost` or a name under `.localhost` (RFC 6761). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (DOTTED_QUAD.test(h)) return ipv4Kind(ipv4Octets(h)) === "loopback";
  if (h.startsWith("[") && h.endsWith("]")) {
    const groups = parseIpv6(h.slice(1, -1));
    return groups !== null && ipv6Kind(groups) === "loopback";
  }
  return false;
}

/** What an IP address is, for the refusal message. "public" is the only kind that may be called. */
export type AddressKind =
  | "public"
  | "metadata"
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "unique-local"
  | "shared (CGNAT)"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "documentation"
  | "benchmarking";

/** Cloud metadata and platform addresses: AWS/GCP/Azure/OpenStack, ECS task metadata, Azure wire server,
 * Alibaba, and the AWS IPv6 metadata endpoint. */
const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "168.63.129.16", "100.100.100.200"]);
const METADATA_V6 = "fd00:ec2:0:0:0:0:0:254";

/** The kind of a dotted-quad IPv4 address. */
export function ipv4Kind(octets: readonly number[]): AddressKind {
  const [a = 0, b = 0, c = 0, d = 0] = octets;
  if (METADATA_V4.has(`${a}.${b}.${c}.${d}`)) return "metadata";
  if (a === 0) return b === 0 && c === 0 && d === 0 ? "unspecified" : "reserved"; // 0.0.0.0/8 "this network"
  if (a === 10) return "private";
  if (a === 100 && b >= 64 && b <= 127) return "shared (CGNAT)";
  if (a === 127) return "loopback";
  if (a === 169 && b === 254) return "link-local";
  if (a === 172 && b >= 16 && b <= 31) return "private";
  if (a === 192 && b === 0 && c === 0) return "reserved";
  if (a === 192 && b === 0 && c === 2) return "documentation";
  if (a === 192 && b === 168) return "private";
  if (a === 198 && (b === 18 || b === 19)) return "benchmarking";
  if (a === 198 && b === 51 && c === 100) return "documentation";
  if (a === 203 && b === 0 && c === 113) return "documentation";
  if (a >= 224 && a <= 239) return "multicast";
  if (a === 255 && b === 255 && c === 255 && d === 255) return "broadcast";
  if (a >= 240) return "reserved";
  return "public";
}

/** The kind of an IPv6 address given as eight 16-bit groups; embedded IPv4 forms are judged by the IPv4. */
export function ipv6Kind(g: readonly number[]): AddressKind {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = (hi: number, lo: number) => ipv4Kind([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (g.map((x) => x.toString(16)).join(":") === METADATA_V6) return "metadata";
  const firstSixZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstSixZero && g5 === 0 && g6 === 0 && g7 === 0) return "unspecified";
  if (firstSixZero && g5 === 0 && g6 === 0 && g7 === 1) return "loopback";
  if (firstSixZero && g5 === 0xffff) return embedded(g6, g7); // ::ffff:a.b.c.d (IPv4-mapped)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return embedded(g6, g7); // NAT64
  if (g0 === 0x2002) return embedded(g1, g2); // 6to4
  if (g0 >> 8 === 0) return "reserved"; // ::/8, including the deprecated IPv4-compatible ::a.b.c.d
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "reserved"; // deprecated site-local
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if (g0 >> 8 === 0xff) return "multicast";
  if (g0 === 0x2001 && g1 === 0xdb8) return "documentation";
  if (g0 === 0x3fff && g1 >> 12 === 0) return "documentation";
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return "reserved"; // discard-only
  return "public";
}

function addressProblem(kind: AddressKind, host: string, dev: boolean): UrlProblem | null {
  if (kind === "public") return null;
  if (dev && kind !== "metadata") return null;
  const what = kind === "metadata" ? "a cloud metadata address" : `a ${kind} address`;
  return problem("forbidden_address", `The host ${host} is ${what}; the service only calls public internet hosts.`);
}

function ipv4Octets(host: string): number[] {
  return host.split(".").map(Number);
}

/**
 * The eight 16-bit groups of an IPv6 address, or null when the text is not one. Accepts the URL
 * parser's serialization and what resolvers return: a zone id (`fe80::1%eth0`) and an embedded IPv4
 * tail (`::ffff:1.2.3.4`).
 */
export function parseIpv6(text: string): number[] | null {
  let s = (text.split("%", 1)[0] ?? "").toLowerCase();
  const quad = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (quad !== null) {
    const [a = 0, b = 0, c = 0, d = 0] = quad.slice(2).map(Number);
    if (Math.max(a, b, c, d) > 255) return null;
    s = `${quad[1] ?? ""}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string | undefined) => (part === undefined || part === "" ? [] : part.split(":").map((h) => (/^[0-9a-f]{1,4}$/.test(h) ? parseInt(h, 16) : NaN)));
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
  return groups.some(Number.isNaN) ? null : groups;
}

function problem(code: UrlProblem["code"], message: string): UrlProblem {
  return { code, message };
}
