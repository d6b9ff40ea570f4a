// What an IP address is: public, or one of the kinds the service never connects to (loopback, private,
// link-local, cloud metadata, ...). The egress guard refuses non-public addresses at connect time, and
// registration refuses URLs whose host is one (hosts.ts); both read these rules.

/** Four decimal octets, the one IPv4 spelling accepted as written. */
export const DOTTED_QUAD = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

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

export function ipv4Octets(host: string): number[] {
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
