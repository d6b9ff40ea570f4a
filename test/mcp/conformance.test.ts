// The remote MCP endpoint against the official conformance suite (@modelcontextprotocol/conformance,
// run as its own CLI, as a client author would): the server scenarios that apply to a server of tools
// without prompts or resources: server-initialize, ping, tools-list, dns-rebinding-protection and
// server-sse-polling. The suite speaks no authentication, so it reaches the served API through a plain
// HTTP hop that adds the renter's API key and changes nothing else (the Host and Origin it sends, which
// the DNS rebinding scenario forges, reach the service as sent).
import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "../support/world.ts";

let world: World;
let hop: http.Server;
let hopUrl: string;

beforeAll(async () => {
  world = await startWorld({ agent: true });
  const agent = await world.publishConnected("conformance-agent", { rental: "one_time" });
  const renter = await world.renter();
  await world.rent(renter.account, agent);
  const target = new URL(world.url);
  hop = http.createServer((req, res) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${renter.key}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => hop.listen(0, "127.0.0.1", resolve));
  hopUrl = `http://127.0.0.1:${(hop.address() as AddressInfo).port}`;
}, 180_000);
afterAll(async () => {
  await new Promise((resolve) => hop?.close(resolve));
  hop?.closeAllConnections();
  await world?.close();
});

const BIN = join(process.cwd(), "node_modules", ".bin", "conformance");

/** Runs one scenario; its exit code and what it printed. */
function scenario(name: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(BIN, ["server", "--url", `${hopUrl}/v1/mcp`, "--scenario", name], { timeout: 60_000, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` });
    });
  });
}

describe("POST /v1/mcp against the MCP conformance suite", () => {
  for (const name of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-polling"]) {
    it(`passes ${name}`, async () => {
      const { code, output } = await scenario(name);
      expect(output, output).not.toMatch(/FAILURE|✗|Failed: [1-9]/);
      expect(code, output).toBe(0);
    }, 90_000);
  }
});
