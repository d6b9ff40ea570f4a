// The egress guard against real HTTP and HTTPS servers on 127.0.0.1 (a CA made by the test). Every
// "public" name is answered by an injected resolver; a public address is only ever returned where the
// guard refuses before any socket exists, so no test sends traffic anywhere but 127.0.0.1.
import { execFileSync } from "node:child_process";
import type dns from "node:dns";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { classifyAddress, createEgressGuard, EgressRefusedError, type EgressGuard, type EgressLookup, type EgressRefusalReason } from "../../src/adapters/egress/guard.ts";

const DEV_NAME = "model.dev.test";
let ca: string;
let httpsServer: https.Server;
let httpServer: http.Server;
let httpsPort: number;
let httpPort: number;
let connections = 0;
const guards: EgressGuard[] = [];

/** A resolver that answers from a table and counts its calls. */
function fakeLookup(table: Record<string, string[] | ((call: number) => string[])>): EgressLookup & { calls: string[] } {
  const calls: string[] = [];
  const fn = ((hostname: string, _options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => {
    calls.push(hostname);
    const entry = table[hostname];
    const addresses = typeof entry === "function" ? entry(calls.filter((h) => h === hostname).length) : entry;
    if (addresses === undefined) {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = "ENOTFOUND";
      setImmediate(() => callback(err, []));
      return;
    }
    setImmediate(() => callback(null, addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))));
  }) as EgressLookup & { calls: string[] };
  fn.calls = calls;
  return fn;
}

function guard(options: Parameters<typeof createEgressGuard>[0] = {}): EgressGuard {
  const g = createEgressGuard({ ca, lookup: fakeLookup({}), ...options });
  guards.push(g);
  return g;
}

async function refusal(promise: Promise<unknown>): Promise<EgressRefusedError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EgressRefusedError);
  return err as EgressRefusedError;
}

async function expectRefused(promise: Promise<unknown>, reason: EgressRefusalReason): Promise<EgressRefusedError> {
  const err = await refusal(promise);
  expect(err.reason).toBe(reason);
  return err;
}

const tls = () => `https://127.0.0.1:${httpsPort}`;

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://x");
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const path = url.pathname;
    if (path === "/ok") return void res.end("hello");
    if (path === "/echo") {
      res.setHeader("content-type", "application/json");
      return void res.end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    }
    if (path === "/close") {
      res.setHeader("connection", "close");
      return void res.end("closing");
    }
    if (path === "/redirect") {
      res.statusCode = Number(url.searchParams.get("status") ?? 302);
      res.setHeader("location", url.searchParams.get("to") ?? "/ok");
      return void res.end();
    }
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (chain !== null) {
      const n = Number(chain[1]);
      if (n === 0) return void res.end("end of chain");
      res.statusCode = 302;
      res.setHeader("location", `/chain/${n - 1}`);
      return void res.end();
    }
    if (path === "/big") {
      // 64 KiB in 1 KiB chunks, no content-length (chunked).
      let sent = 0;
      const write = () => {
        let more = true;
        while (sent < 64 && more) {
          more = res.write(Buffer.alloc(1024, 97));
          sent++;
        }
        if (sent < 64) res.once("drain", write);
        else res.end();
      };
      return void write();
    }
    if (path === "/big-declared") {
      res.setHeader("content-length", String(64 * 1024));
      return void res.end(Buffer.alloc(64 * 1024, 97));
    }
    if (path === "/hang") return; // never answers
    if (path === "/stall") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
      return; // never ends
    }
    res.statusCode = 404;
    res.end("not found");
  });
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "egress-ca-"));
  try {
    const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=egress test CA");
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost");
    execFileSync("sh", ["-c", `printf 'subjectAltName=DNS:localhost,DNS:${DEV_NAME},IP:127.0.0.1,IP:::1\\nbasicConstraints=CA:FALSE\\n' > leaf.ext`], { cwd: dir });
    run("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.pem", "-days", "1", "-extfile", "leaf.ext");
    ca = readFileSync(join(dir, "ca.pem"), "utf8");
    httpsServer = https.createServer({ key: readFileSync(join(dir, "leaf.key")), cert: readFileSync(join(dir, "leaf.pem")) }, handler);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  httpServer = http.createServer(handler);
  httpsServer.on("connection", () => connections++);
  httpServer.on("connection", () => connections++);
  await new Promise<void>((resolve) => httpsServer.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  httpsPort = (httpsServer.address() as AddressInfo).port;
  httpPort = (httpServer.address() as AddressInfo).port;
});

afterEach(async () => {
  await Promise.all(guards.splice(0).map((g) => g.dispatcher.destroy().catch(() => undefined)));
});

afterAll(async () => {
  for (const server of [httpsServer, httpServer]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe("address classification (the registration check's, through the resolver's spellings)", () => {
  it("classifies the forms a resolver returns", () => {
    expect(classifyAddress("127.0.0.1")).toBe("loopback");
    expect(classifyAddress("10.1.2.3")).toBe("private");
    expect(classifyAddress("100.64.0.1")).toBe("shared (CGNAT)");
    expect(classifyAddress("169.254.169.254")).toBe("metadata");
    expect(classifyAddress("169.254.1.1")).toBe("link-local");
    expect(classifyAddress("0.0.0.0")).toBe("unspecified");
    expect(classifyAddress("255.255.255.255")).toBe("broadcast");
    expect(classifyAddress("224.0.0.1")).toBe("multicast");
    expect(classifyAddress("::1")).toBe("loopback");
    expect(classifyAddress("::")).toBe("unspecified");
    expect(classifyAddress("::ffff:127.0.0.1")).toBe("loopback");
    expect(classifyAddress("::ffff:7f00:1")).toBe("loopback");
    expect(classifyAddress("::ffff:169.254.169.254")).toBe("metadata");
    expect(classifyAddress("fd00:ec2::254")).toBe("metadata");
    expect(classifyAddress("fe80::1%eth0")).toBe("link-local");
    expect(classifyAddress("fc00::1")).toBe("unique-local");
    expect(classifyAddress("ff02::1")).toBe("multicast");
    expect(classifyAddress("8.8.8.8")).toBe("public");
    expect(classifyAddress("2606:4700::1111")).toBe("public");
    expect(classifyAddress("example.com")).toBeNull();
  });
});

describe("loopback and allow-listing", () => {
  it("refuses loopback by default, before any connection", async () => {
    const g = guard();
    const before = connections;
    await expectRefused(g.fetch(`${tls()}/ok`), "forbidden_address");
    await expectRefused(g.fetch(`https://[::1]:${httpsPort}/ok`), "forbidden_address");
    await expectRefused(g.fetch(`https://[::ffff:127.0.0.1]:${httpsPort}/ok`), "forbidden_address");
    await expectRefused(g.fetch(`https://[::ffff:7f00:1]:${httpsPort}/ok`), "forbidden_address");
    expect(connections).toBe(before);
  });

  it("refuses loopback through the dispatcher alone (the connector enforces the rules)", async () => {
    const g = guard();
    const before = connections;
    const err = await request(`${tls()}/ok`, { dispatcher: g.dispatcher }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect((err as EgressRefusedError).reason).toBe("forbidden_address");
    expect(connections).toBe(before);
  });

  it("allows an allow-listed IP literal over HTTPS (private CA) and HTTP", async () => {
    const g = guard({ allowHosts: ["127.0.0.1"] });
    const res = await g.fetch(`${tls()}/ok`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("hello");
    const plain = await g.fetch(`http://127.0.0.1:${httpPort}/ok`);
    expect(await plain.text()).toBe("hello");
  });

  it("allows an allow-listed name that resolves to loopback, with TLS verified against the name", async () => {
    const lookup = fakeLookup({ [DEV_NAME]: ["127.0.0.1"] });
    const g = guard({ allowHosts: [DEV_NAME], lookup });
    const res = await g.fetch(`https://${DEV_NAME}:${httpsPort}/echo`);
    const echoed = (await res.json()) as { headers: Record<string, string> };
    expect(echoed.headers.host).toBe(`${DEV_NAME}:${httpsPort}`);
    expect(lookup.calls).toEqual([DEV_NAME]);
  });

  it("allows loopback with allowPrivate, but never a metadata address", async () => {
    const lookup = fakeLookup({ "meta.example.com": ["169.254.169.254"], "meta6.example.com": ["fd00:ec2::254"] });
    const g = guard({ allowPrivate: true, allowHosts: ["meta.example.com", "169.254.169.254"], lookup });
    expect(await (await g.fetch(`${tls()}/ok`)).text()).toBe("hello");
    const before = connections;
    await expectRefused(g.fetch("https://meta.example.com/latest/meta-data/"), "forbidden_address");
    await expectRefused(g.fetch("https://meta6.example.com/latest/meta-data/"), "forbidden_address");
    await expectRefused(g.fetch("http://169.254.169.254/latest/meta-data/"), "forbidden_address");
    expect(connections).toBe(before);
  });

  it("does not allow-list a name by its address: another name resolving to an allow-listed IP is refused", async () => {
    const lookup = fakeLookup({ "other.example.com": ["127.0.0.1"] });
    const g = guard({ allowHosts: ["127.0.0.1"], lookup });
    await expectRefused(g.fetch(`https://other.example.com:${httpsPort}/ok`), "forbidden_address");
  });
});

describe("resolution at connect time", () => {
  it.each([
    ["127.0.0.1", ["127.0.0.1"]],
    ["the metadata address", ["169.254.169.254"]],
    ["an IPv4-mapped loopback", ["::ffff:127.0.0.1"]],
    ["an IPv6 loopback", ["::1"]],
    ["a unique-local address", ["fd12:3456::1"]],
    ["a link-local address", ["fe80::1"]],
    ["a private address", ["10.0.0.5"]],
    ["a CGNAT address", ["100.64.1.1"]],
    ["the unspecified address", ["0.0.0.0"]],
    ["a public and a private address together", ["93.184.215.14", "127.0.0.1"]],
  ])("refuses a public-looking name resolving to %s", async (_label, addresses) => {
    const lookup = fakeLookup({ "api.example.com": addresses });
    const g = guard({ lookup });
    const before = connections;
    const err = await expectRefused(g.fetch(`https://api.example.com:${httpsPort}/ok`), "forbidden_address");
    expect(err.message).toContain("api.example.com");
    expect(connections).toBe(before);
    expect(lookup.calls).toEqual(["api.example.com"]);
  });

  it("DNS rebinding: an earlier public answer does not matter, the connection's own lookup decides", async () => {
    // First answer public (as a pre-check would see it), second private (what the connection gets).
    const lookup = fakeLookup({ "rebind.example.com": (call) => (call === 1 ? ["93.184.215.14"] : ["127.0.0.1"]) });
    const precheck = await new Promise<dns.LookupAddress[]>((resolve) => lookup("rebind.example.com", { all: true }, (_e, a) => resolve(a)));
    expect(classifyAddress(precheck[0]?.address ?? "")).toBe("public");
    const g = guard({ lookup });
    const before = connections;
    await expectRefused(g.fetch(`https://rebind.example.com:${httpsPort}/ok`), "forbidden_address");
    expect(lookup.calls).toHaveLength(2);
    expect(connections).toBe(before);
  });

  it("DNS rebinding: every new connection is resolved and checked again", async () => {
    // Allow-listed name: the first connection gets loopback (allowed), the next one the metadata address.
    const lookup = fakeLookup({ [DEV_NAME]: (call) => (call === 1 ? ["127.0.0.1"] : ["169.254.169.254"]) });
    const g = guard({ allowHosts: [DEV_NAME], lookup });
    const first = await g.fetch(`https://${DEV_NAME}:${httpsPort}/close`);
    expect(await first.text()).toBe("closing");
    const before = connections;
    await expectRefused(g.fetch(`https://${DEV_NAME}:${httpsPort}/ok`), "forbidden_address");
    expect(lookup.calls).toEqual([DEV_NAME, DEV_NAME]);
    expect(connections).toBe(before);
  });

  it("reports a name that does not resolve as dns_failure", async () => {
    const g = guard({ lookup: fakeLookup({}) });
    await expectRefused(g.fetch("https://nowhere.example.com/"), "dns_failure");
  });
});

describe("schemes", () => {
  it("refuses http: for a host that is not allow-listed, without resolving it", async () => {
    const lookup = fakeLookup({ "api.example.com": ["127.0.0.1"] });
    const g = guard({ lookup });
    await expectRefused(g.fetch("http://api.example.com/"), "scheme_not_allowed");
    await expectRefused(g.fetch(`http://127.0.0.1:${httpPort}/ok`), "scheme_not_allowed");
    expect(lookup.calls).toEqual([]);
  });

  it("refuses http: for a host allow-listed for another name", async () => {
    const g = guard({ allowHosts: [DEV_NAME] });
    await expectRefused(g.fetch(`http://127.0.0.1:${httpPort}/ok`), "scheme_not_allowed");
  });

  it("with the development switch, allows http: to loopback hosts only: a name that resolves to loopback, and every other host, keep https", async () => {
    const lookup = fakeLookup({ "agents.example.com": ["127.0.0.1"], "localhost": ["127.0.0.1"] });
    const g = guard({ allowPrivate: true, lookup });
    expect(await (await g.fetch(`http://127.0.0.1:${httpPort}/ok`)).text()).toBe("hello");
    expect(await (await g.fetch(`http://localhost:${httpPort}/ok`)).text()).toBe("hello");
    await expectRefused(g.fetch(`http://agents.example.com:${httpPort}/ok`), "scheme_not_allowed");
    await expectRefused(g.fetch("http://93.184.216.34/"), "scheme_not_allowed");
    expect(lookup.calls).toEqual(["localhost"]);
  });

  it("refuses other schemes", async () => {
    const g = guard({ allowPrivate: true });
    await expectRefused(g.fetch("ftp://127.0.0.1/x"), "scheme_not_allowed");
    await expectRefused(g.fetch("file:///etc/passwd"), "scheme_not_allowed");
  });
});

describe("redirects", () => {
  const redirect = (to: string, status = 302) => `${tls()}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

  it("refuses a redirect from an allowed server to a forbidden address", async () => {
    const lookup = fakeLookup({ "internal.example.com": ["10.0.0.1"] });
    const g = guard({ allowHosts: ["127.0.0.1"], lookup });
    await expectRefused(g.fetch(redirect("https://169.254.169.254/latest/meta-data/")), "forbidden_address");
    await expectRefused(g.fetch(redirect("https://internal.example.com/admin")), "forbidden_address");
    await expectRefused(g.fetch(redirect(`https://[::1]:${httpsPort}/ok`)), "forbidden_address");
  });

  it("refuses a redirect to a forbidden scheme or a downgrade to http:", async () => {
    const lookup = fakeLookup({ [DEV_NAME]: ["127.0.0.1"] });
    const g = guard({ allowHosts: ["127.0.0.1"], lookup });
    await expectRefused(g.fetch(redirect("file:///etc/passwd")), "scheme_not_allowed");
    await expectRefused(g.fetch(redirect(`http://${DEV_NAME}:${httpPort}/ok`)), "scheme_not_allowed");
  });

  it("follows a redirect to an allowed place and reports the final URL", async () => {
    const lookup = fakeLookup({ [DEV_NAME]: ["127.0.0.1"] });
    const g = guard({ allowHosts: ["127.0.0.1", DEV_NAME], lookup });
    const same = await g.fetch(redirect("/ok"));
    expect(same.status).toBe(200);
    expect(same.redirected).toBe(true);
    expect(same.url).toBe(`${tls()}/ok`);
    expect(await same.text()).toBe("hello");

    const cross = await g.fetch(redirect(`https://${DEV_NAME}:${httpsPort}/echo`));
    expect(cross.url).toBe(`https://${DEV_NAME}:${httpsPort}/echo`);
    expect(((await cross.json()) as { method: string }).method).toBe("GET");
  });

  it("keeps credentials on same-origin hops and drops them on cross-origin hops", async () => {
    const lookup = fakeLookup({ [DEV_NAME]: ["127.0.0.1"] });
    const g = guard({ allowHosts: ["127.0.0.1", DEV_NAME], lookup });
    const headers = { authorization: "Bearer sk-secret", "x-api-key": "sk-other", accept: "application/json" };
    const same = (await (await g.fetch(redirect("/echo"), { headers })).json()) as { headers: Record<string, string> };
    expect(same.headers.authorization).toBe("Bearer sk-secret");
    const cross = (await (await g.fetch(redirect(`https://${DEV_NAME}:${httpsPort}/echo`), { headers })).json()) as { headers: Record<string, string> };
    expect(cross.headers.authorization).toBeUndefined();
    expect(cross.headers["x-api-key"]).toBeUndefined();
    expect(cross.headers.accept).toBe("application/json");
  });

  it("turns POST into GET on 303 and keeps method and body on 307", async () => {
    const g = guard({ allowHosts: ["127.0.0.1"] });
    const seeOther = (await (await g.fetch(redirect("/echo", 303), { method: "POST", body: "payload" })).json()) as { method: string; body: string };
    expect(seeOther).toMatchObject({ method: "GET", body: "" });
    const temporary = (await (await g.fetch(redirect("/echo", 307), { method: "POST", body: "payload" })).json()) as { method: string; body: string };
    expect(temporary).toMatchObject({ method: "POST", body: "payload" });
  });

  it("follows up to maxRedirects and refuses one more", async () => {
    const g = guard({ allowHosts: ["127.0.0.1"] });
    expect(await (await g.fetch(`${tls()}/chain/3`)).text()).toBe("end of chain");
    await expectRefused(g.fetch(`${tls()}/chain/4`), "too_many_redirects");
    expect(await (await g.fetch(`${tls()}/chain/5`, { maxRedirects: 5 })).text()).toBe("end of chain");
    await expectRefused(g.fetch(`${tls()}/chain/1`, { maxRedirects: 0 }), "too_many_redirects");
  });
});

describe("limits", () => {
  it("aborts a chunked response larger than the cap while it streams", async () => {
    const g = guard({ allowHosts: ["127.0.0.1"], maxResponseBytes: 8 * 1024 });
    const res = await g.fetch(`${tls()}/big`);
    expect(res.status).toBe(200);
    await expectRefused(res.text(), "response_too_large");
  });

  it("refuses a response whose declared length is over the cap", async () => {
    const g = guard({ allowHosts: ["127.0.0.1"], maxResponseBytes: 8 * 1024 });
    await expectRefused(g.fetch(`${tls()}/big-declared`), "response_too_large");
  });

  it("reads a response under the cap", async () => {
    const g = guard({ allowHosts: ["127.0.0.1"], maxResponseBytes: 64 * 1024 });
    expect((await (await g.fetch(`${tls()}/big`)).arrayBuffer()).byteLength).toBe(64 * 1024);
  });

  it("times out a server that never answers", async () => {
    const g = guard({ allowHosts: ["127.0.0.1"] });
    const started = Date.now();
    await expectRefused(g.fetch(`${tls()}/hang`, { timeoutMs: 200 }), "timeout");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("the overall timeout covers reading the body", async () => {
    // Room for the handshake and the headers on a loaded machine; the body never ends.
    const g = guard({ allowHosts: ["127.0.0.1"], timeoutMs: 1_000 });
    const res = await g.fetch(`${tls()}/stall`);
    expect(res.status).toBe(200);
    await expectRefused(res.text(), "timeout");
  });

  it("a caller's own abort signal still works", async () => {
    const g = guard({ allowHosts: ["127.0.0.1"] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await g.fetch(`${tls()}/hang`, { signal: controller.signal }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(EgressRefusedError);
  });
});

describe("secrets stay out of errors", () => {
  it("never puts headers, bodies, paths or queries in the message", async () => {
    const lookup = fakeLookup({ "api.example.com": ["127.0.0.1"] });
    const g = guard({ lookup });
    const secrets = ["sk-live-HEADER", "BODY-SECRET", "QUERY-SECRET", "PATH-SECRET"];
    const err = await refusal(
      g.fetch("https://api.example.com/PATH-SECRET?key=QUERY-SECRET", { method: "POST", headers: { authorization: "Bearer sk-live-HEADER" }, body: "BODY-SECRET" }),
    );
    const text = `${err.message} ${err.stack ?? ""} ${JSON.stringify(err)}`;
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
