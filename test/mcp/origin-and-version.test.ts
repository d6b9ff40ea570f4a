// The remote MCP endpoint as Streamable HTTP asks a server to be: Origin validated against DNS
// rebinding (a page of another origin refused 403 origin_not_allowed before authentication; the API's
// own origin, the dashboard's and MCP_ALLOWED_ORIGINS allowed; on a local stack a Host that is not the
// machine's own refused), and MCP-Protocol-Version negotiated (the client's revision when supported, the
// latest otherwise; a request naming an unsupported revision refused 400).
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { startWorld, type World } from "../support/world.ts";

let world: World;
let key: string;

beforeAll(async () => {
  world = await startWorld({ env: { MCP_ALLOWED_ORIGINS: "https://partner.example" } });
  key = (await world.renter()).key;
}, 120_000);
afterAll(() => world?.close());

const initialize = (protocolVersion: string) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } } });

/** A raw request with the headers as given (Host included), as a browser or an attacker's page sends them. */
function raw(headers: Record<string, string>, body = initialize(LATEST_PROTOCOL_VERSION)): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const url = new URL(`${world.url}/v1/mcp`);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("POST /v1/mcp: Origin (DNS rebinding)", () => {
  it("refuses a page of another origin with 403 origin_not_allowed before authentication, in the envelope with the rate headers", async () => {
    const cases: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "https://evil.example", authorization: `Bearer ${key}` }, { origin: "null" }];
    for (const headers of cases) {
      const res = await raw(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: "origin_not_allowed", status: 403 } });
      expect(res.headers["x-request-id"]).toBeTruthy();
    }
  });

  it("refuses a Host that is not the machine's own (a name rebound to 127.0.0.1)", async () => {
    const res = await raw({ host: "evil.example:80", origin: "http://evil.example:80", authorization: `Bearer ${key}` });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error.code).toBe("origin_not_allowed");
  });

  it("serves the API's own origin, a configured one, and clients that send no Origin", async () => {
    const own = new URL(world.url).origin;
    const cases: Record<string, string>[] = [{ origin: own }, { origin: "https://partner.example" }, {}, { host: `localhost:${new URL(world.url).port}` }];
    for (const headers of cases) {
      const res = await raw({ ...headers, authorization: `Bearer ${key}` });
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it("refuses GET and DELETE from another origin the same way", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${world.url}/v1/mcp`, { method, headers: { origin: "https://evil.example", authorization: `Bearer ${key}` } });
      expect(res.status).toBe(403);
    }
  });
});

describe("POST /v1/mcp: MCP-Protocol-Version", () => {
  it("answers initialize in the client's revision when it is supported, in the latest otherwise", async () => {
    for (const [asked, answered] of [["2025-06-18", "2025-06-18"], ["2025-03-26", "2025-03-26"], [LATEST_PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION], ["1999-01-01", LATEST_PROTOCOL_VERSION]]) {
      const res = await raw({ authorization: `Bearer ${key}` }, initialize(asked!));
      expect(res.status).toBe(200);
      const message = res.headers["content-type"]?.includes("text/event-stream") ? JSON.parse(/^data: (.*)$/m.exec(res.body)![1]!) : JSON.parse(res.body);
      expect(message.result.protocolVersion, asked).toBe(answered);
    }
  });

  it("refuses a request naming a revision it does not speak with 400, and serves one naming a supported revision", async () => {
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const unsupported = await raw({ authorization: `Bearer ${key}`, "mcp-protocol-version": "1999-01-01" }, list);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body).toMatch(/Unsupported protocol version/);
    const supported = await raw({ authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-06-18" }, list);
    expect(supported.status).toBe(200);
  });

  it("the official client negotiates the latest revision and lists tools", async () => {
    const client = new Client({ name: "version-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${world.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    expect(client.getServerVersion()).toBeTruthy();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("run_agent");
    await client.close();
  });
});
