// `agentrent config set` checks a value before it writes it, and a bad API URL never locks the CLI out:
// in-process through `main`, against a real HTTP server on 127.0.0.1 that answers the API's health route
// and a chain's eth_chainId, and a port with nothing listening.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { main } from "../../cli/src/main.ts";
import { EXIT } from "../../cli/src/errors.ts";
import { freePort } from "../../local/ports.ts";

let server: Server;
let good: string;
let closed: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/v1/health") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" }));
    if (req.method === "POST" && req.url === "/rpc") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: "0x7a69" }));
    res.writeHead(404, { "content-type": "text/html" }).end("<h1>not here</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  good = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closed = `http://127.0.0.1:${await freePort()}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs the CLI with its own config directory and no local stack; `dir` is kept between calls. */
async function cli(dir: string, args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        append(chunk.toString());
        done();
      },
    });
  const code = await main(args, {
    env: { HOME: dir, AGENTRENT_CONFIG_DIR: dir, AGENTRENT_STACK_FILE: "", LOCAL_DATA_DIR: "", ...env },
    cwd: dir,
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
  });
  return { code, stdout, stderr };
}

const configOf = (dir: string) => JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as Record<string, unknown>;

describe("config set checks the value before writing it", () => {
  it("a malformed API URL is a usage error and writes nothing, even with --force", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrent-config-"));
    for (const value of ["not a url", "ftp://files.example.com"]) {
      for (const force of [[], ["--force"]]) {
        const r = await cli(dir, ["config", "set", "api_url", value, ...force]);
        expect({ value, force, code: r.code }).toEqual({ value, force, code: EXIT.usage });
        expect(r.stderr).toMatch(/api_url must be (a URL|an http:\/\/ or https:\/\/ URL).*nothing was written/);
      }
    }
    expect(existsSync(join(dir, "config.json"))).toBe(false);
  });

  it("an API URL that does not answer, or answers as something else, is refused (exit 8) with the reason and --force named", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrent-config-"));
    const unreachable = await cli(dir, ["config", "set", "api_url", closed]);
    expect(unreachable.code).toBe(EXIT.unavailable);
    expect(unreachable.stderr).toContain(`api_url ${closed}/v1/health: it could not be reached; nothing was written. Check the URL, or pass --force to store it anyway.`);
    const elsewhere = await cli(dir, ["config", "set", "api_url", `${good}/not-the-api`, "--json"]);
    expect(elsewhere.code).toBe(EXIT.unavailable);
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ error: { code: "unreachable", exit_code: EXIT.unavailable } });
    expect(elsewhere.stderr).toMatch(/it answered HTTP 404, not as expected; nothing was written/);
    expect(existsSync(join(dir, "config.json"))).toBe(false);
  });

  it("an API URL that answers is stored (a trailing /v1 dropped) in a 0600 file; an RPC URL must answer eth_chainId", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrent-config-"));
    const stored = await cli(dir, ["config", "set", "api_url", `${good}/v1`, "--json"]);
    expect(stored.code, stored.stderr).toBe(0);
    expect(JSON.parse(stored.stdout)).toMatchObject({ api_url: good });
    expect(configOf(dir)).toEqual({ api_url: good });
    expect(statSync(join(dir, "config.json")).mode & 0o777).toBe(0o600);

    const notChain = await cli(dir, ["config", "set", "rpc_url", good]);
    expect(notChain.code).toBe(EXIT.unavailable);
    const chain = await cli(dir, ["config", "set", "rpc_url", `${good}/rpc`]);
    expect(chain.code, chain.stderr).toBe(0);
    expect(configOf(dir)).toEqual({ api_url: good, rpc_url: `${good}/rpc` });
  });
});

describe("a bad API URL never locks the CLI out", () => {
  it("--force stores an unreachable URL; help, version and config show still work, commands say what to check, and config set fixes it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrent-config-"));
    const forced = await cli(dir, ["config", "set", "api_url", closed, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(configOf(dir)).toEqual({ api_url: closed });

    expect((await cli(dir, ["--version"])).code).toBe(0);
    expect((await cli(dir, ["help", "search"])).code).toBe(0);
    const shown = await cli(dir, ["config", "show", "--json"]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ api_url: closed, sources: { api_url: "config" }, problems: [] });

    const search = await cli(dir, ["search", "--json"], { AGENTRENT_API_KEY: `svc_test_${"a".repeat(40)}` });
    expect(search.code).toBe(EXIT.unavailable);
    expect(JSON.parse(search.stdout)).toMatchObject({ error: { code: "connection_failed" } });
    expect(search.stderr).toMatch(/agentrent config show/);

    // A flag or the environment overrides the stored value for one command.
    const flagged = await cli(dir, ["config", "show", "--api-url", good, "--json"]);
    expect(JSON.parse(flagged.stdout)).toMatchObject({ api_url: good, sources: { api_url: "--api-url" } });

    const fixed = await cli(dir, ["config", "set", "api_url", good]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(configOf(dir)).toEqual({ api_url: good });
  });

  it("a malformed URL written into the config file by hand: commands name it and the fix, config show reports it, config set replaces it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrent-config-"));
    writeFileSync(join(dir, "config.json"), JSON.stringify({ api_url: "htp:/broken", chain_id: 31337 }));

    const search = await cli(dir, ["search"], { AGENTRENT_API_KEY: `svc_test_${"a".repeat(40)}` });
    expect(search.code).toBe(EXIT.usage);
    expect(search.stderr).toContain("The API URL (from config) is not an http(s) URL: htp:/broken. Fix it with `agentrent config set api_url <value>`.");

    const shown = await cli(dir, ["config", "show", "--json"]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ api_url: null, chain_id: 31337, problems: [expect.stringContaining("agentrent config set api_url")] });
    expect(shown.stderr).toContain("htp:/broken");

    const fixed = await cli(dir, ["config", "set", "api_url", good]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(configOf(dir)).toEqual({ api_url: good, chain_id: 31337 });
    expect(JSON.parse((await cli(dir, ["config", "show", "--json"])).stdout)).toMatchObject({ api_url: good, problems: [] });
  });
});
