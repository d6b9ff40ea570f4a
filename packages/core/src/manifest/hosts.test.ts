// Table-driven cases for the registration-time URL check: which URLs the service agrees to call, in
// every spelling an attacker might use to reach an internal address, and the development switch.
import { describe, expect, it } from "vitest";
import { checkPublicHttpsUrl, checkUrl, type UrlProblem } from "./hosts.ts";

type Case = [url: string, code: UrlProblem["code"] | null, reason?: RegExp];

const CASES: Case[] = [
  // Accepted.
  ["https://api.example.com/v1/chat", null],
  ["https://api.example.com", null],
  ["https://api.example.com:443/v1", null],
  ["https://API.Example.COM/path?q=1", null],
  ["https://a.b.c.example.co.uk/hook#frag", null],
  ["https://8.8.8.8/", null],
  ["https://[2606:4700:4700::1111]/", null],
  ["https://xn--bcher-kva.de/", null],
  ["https://my-agent.example.org/webhook", null],
  ["https://100.63.255.255/", null],
  ["https://172.32.0.1/", null],
  ["https://example.com./", null],
  // Scheme, shape and credentials.
  ["http://api.example.com/", "not_https"],
  ["ftp://api.example.com/", "not_https"],
  ["file:///etc/passwd", "not_https"],
  ["javascript:alert(1)", "not_https"],
  ["api.example.com/v1", "invalid_url"],
  ["", "invalid_url"],
  ["https:/api.example.com", "invalid_url"],
  ["https:///api.example.com", "invalid_url"],
  ["https:\\\\api.example.com", "invalid_url"],
  ["https://", "invalid_url"],
  ["https://exa\tmple.com/", "invalid_url"],
  [" https://api.example.com/", "invalid_url"],
  ["https://%6c%6fcalhost/", "invalid_url"],
  ["https://under_score.example.com/", "invalid_url"],
  [`https://${"a".repeat(2050)}.com/`, "invalid_url"],
  ["https://user:pass@api.example.com/", "credentials_in_url"],
  ["https://user@api.example.com/", "credentials_in_url"],
  ["https://@api.example.com/", "credentials_in_url"],
  ["https://api.example.com@127.0.0.1/", "credentials_in_url"],
  // Ports.
  ["https://api.example.com:8443/", "port_not_allowed"],
  ["https://api.example.com:80/", "port_not_allowed"],
  ["https://api.example.com:22/", "port_not_allowed"],
  // IPv4 literals outside the public internet.
  ["https://127.0.0.1/", "forbidden_address", /loopback/],
  ["https://127.255.255.254/", "forbidden_address", /loopback/],
  ["https://10.0.0.1/", "forbidden_address", /private/],
  ["https://172.16.0.1/", "forbidden_address", /private/],
  ["https://172.31.255.255/", "forbidden_address", /private/],
  ["https://192.168.1.1/", "forbidden_address", /private/],
  ["https://169.254.1.1/", "forbidden_address", /link-local/],
  ["https://169.254.169.254/latest/meta-data/", "forbidden_address", /metadata/],
  ["https://100.64.0.1/", "forbidden_address", /CGNAT/],
  ["https://100.100.100.200/", "forbidden_address", /metadata/],
  ["https://0.0.0.0/", "forbidden_address", /unspecified/],
  ["https://0.1.2.3/", "forbidden_address", /reserved/],
  ["https://224.0.0.1/", "forbidden_address", /multicast/],
  ["https://239.255.255.250/", "forbidden_address", /multicast/],
  ["https://255.255.255.255/", "forbidden_address", /broadcast/],
  ["https://240.0.0.1/", "forbidden_address", /reserved/],
  ["https://192.0.2.10/", "forbidden_address", /documentation/],
  ["https://198.18.0.1/", "forbidden_address", /benchmarking/],
  ["https://127.0.0.1./", "forbidden_address", /loopback/],
  // IPv6 literals.
  ["https://[::1]/", "forbidden_address", /loopback/],
  ["https://[::]/", "forbidden_address", /unspecified/],
  ["https://[fe80::1]/", "forbidden_address", /link-local/],
  ["https://[febf::1]/", "forbidden_address", /link-local/],
  ["https://[fc00::1]/", "forbidden_address", /unique-local/],
  ["https://[fd12:3456::1]/", "forbidden_address", /unique-local/],
  ["https://[fd00:ec2::254]/", "forbidden_address", /metadata/],
  ["https://[ff02::1]/", "forbidden_address", /multicast/],
  ["https://[2001:db8::1]/", "forbidden_address", /documentation/],
  ["https://[::ffff:127.0.0.1]/", "forbidden_address", /loopback/],
  ["https://[::ffff:7f00:1]/", "forbidden_address", /loopback/],
  ["https://[::ffff:169.254.169.254]/", "forbidden_address", /metadata/],
  ["https://[::ffff:10.0.0.1]/", "forbidden_address", /private/],
  ["https://[::127.0.0.1]/", "forbidden_address", /reserved/],
  ["https://[64:ff9b::7f00:1]/", "forbidden_address", /loopback/],
  ["https://[2002:a9fe:a9fe::1]/", "forbidden_address", /metadata/],
  ["https://[0:0:0:0:0:0:0:1]/", "forbidden_address", /loopback/],
  // IPv4 in spellings the URL parser normalizes.
  ["http://2130706433/", "not_https"],
  ["https://2130706433/", "non_canonical_ip", /127\.0\.0\.1/],
  ["https://0x7f.1/", "non_canonical_ip", /127\.0\.0\.1/],
  ["https://0x7f000001/", "non_canonical_ip"],
  ["https://0177.0.0.1/", "non_canonical_ip"],
  ["https://127.1/", "non_canonical_ip"],
  ["https://127.0.1/", "non_canonical_ip"],
  ["https://017700000001/", "non_canonical_ip"],
  ["https://0xa9.0xfe.0xa9.0xfe/", "non_canonical_ip", /169\.254\.169\.254/],
  ["https://134744072/", "non_canonical_ip", /8\.8\.8\.8/],
  ["https://１２７.０.０.１/", "non_canonical_ip"],
  // Internal names.
  ["https://localhost/", "internal_hostname", /single-label/],
  ["https://LOCALHOST/", "internal_hostname"],
  ["https://api.localhost/", "internal_hostname", /localhost/],
  ["https://printer.local/", "internal_hostname", /\.local/],
  ["https://db.internal/", "internal_hostname", /\.internal/],
  ["https://metadata.google.internal/", "forbidden_address", /metadata/],
  ["https://metadata/", "forbidden_address", /metadata/],
  ["https://intranet/", "internal_hostname", /single-label/],
  ["https://router.home.arpa/", "internal_hostname"],
  ["https://1.2.3.4.5/", "invalid_url"],
];

describe("checkPublicHttpsUrl", () => {
  it("has a table of at least 40 cases, refused and accepted", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(CASES.filter(([, code]) => code === null).length).toBeGreaterThanOrEqual(10);
  });

  it.each(CASES)("%s → %s", (url, code, reason) => {
    const problem = checkUrl(url);
    expect(problem?.code ?? null).toBe(code);
    expect(checkPublicHttpsUrl(url)).toBe(problem?.message ?? null);
    if (reason) expect(problem?.message).toMatch(reason);
  });
});

describe("the development switch", () => {
  const dev = { allowPrivateForDevelopment: true };

  it.each([
    "http://127.0.0.1:8787/agent",
    "http://127.8.9.10/",
    "https://127.0.0.1/",
    "http://localhost:3000/",
    "http://api.localhost:3000/",
    "https://10.0.0.5/",
    "http://[::1]:9000/",
    "http://[::ffff:127.0.0.1]:9000/",
    "https://host.docker.internal:8080/",
    "https://agent/",
  ])("accepts %s when explicitly allowed (and refuses it by default)", (url) => {
    expect(checkPublicHttpsUrl(url, dev)).toBeNull();
    expect(checkPublicHttpsUrl(url)).not.toBeNull();
  });

  it.each([
    "http://agents.example.com/run",
    "http://93.184.216.34/",
    "http://10.0.0.5/",
    "http://host.docker.internal:8080/",
    "http://agent/",
    "http://[2606:4700::1111]/",
    "http://localhost.example.com/",
    "http://127.0.0.1.nip.io/",
  ])("keeps the HTTPS rule for %s, which is not loopback, even when the switch is on", (url) => {
    const problem = checkUrl(url, dev);
    expect(problem?.code).toBe("not_https");
    expect(problem?.message).toContain("loopback");
    expect(checkUrl(url.replace(/^http:/, "https:"), dev)).toBeNull();
  });

  it.each([
    ["http://user:pw@127.0.0.1/", "credentials_in_url"],
    ["http://169.254.169.254/latest/meta-data/", "forbidden_address"],
    ["http://[fd00:ec2::254]/", "forbidden_address"],
    ["http://[::ffff:169.254.169.254]/", "forbidden_address"],
    ["http://metadata.google.internal/", "forbidden_address"],
    ["http://2130706433/", "non_canonical_ip"],
    ["ftp://127.0.0.1/", "not_https"],
    ["gopher://127.0.0.1/", "not_https"],
  ])("still refuses %s", (url, code) => {
    expect(checkUrl(url, dev)?.code).toBe(code);
  });

  it("defaults to off", () => {
    expect(checkPublicHttpsUrl("http://127.0.0.1/")).not.toBeNull();
    expect(checkPublicHttpsUrl("http://127.0.0.1/", {})).not.toBeNull();
    expect(checkPublicHttpsUrl("http://127.0.0.1/", { allowPrivateForDevelopment: false })).not.toBeNull();
  });
});
