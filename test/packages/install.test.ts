// The packages as a new user gets them: `npm pack` of the SDK and the CLI (each builds on prepack),
// the tarballs installed into an empty folder with npm, the SDK imported by plain `node` (ESM and
// CommonJS), its `./ai` and `./mcp` entries once their peers are installed beside it (with npm, from
// its cache or the registry, as a user would), the installed `agent-rental-mcp` program serving the
// rented agents over stdio, the package's types resolved by `tsc` for a consumer in that folder, and
// the installed `agentrent` binary run against the API served on 127.0.0.1 (sign in, search, execute a
// rented connected agent). Nothing from this repository is on the import path of what is installed.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Webhook } from "standardwebhooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { buildApp } from "../../src/api/app.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { indexChain, marketTarget, publishConnectedAgent, type PublishedAgent } from "../support/agents.ts";
import { startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { readBody, serveApi, closeApi } from "../support/http.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const NPM_ENV = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

let ctx: TestContext;
let world: World | undefined;
let api: Server;
let baseUrl: string;
let agentServer: HttpsTestServer;
let agent: PublishedAgent & { webhookSecret: string };
let renterKey: string;
let renterApiKey: string;
let work: string;
let secret = "";

async function connected(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  try {
    new Webhook(secret).verify(body, req.headers as Record<string, string>);
  } catch {
    return void res.writeHead(401).end();
  }
  const payload = JSON.parse(body) as { task: string };
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ output: { findings: [`packed: ${payload.task}`] } }));
}

/** Runs the installed binary in the install folder, with its own config directory. */
const agentrent = (args: string[]) =>
  run(join(work, "node_modules/.bin/agentrent"), args, {
    cwd: work,
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "", HOME: work, AGENTRENT_CONFIG_DIR: join(work, "config"), AGENTRENT_API_URL: baseUrl, AGENTRENT_PRIVATE_KEY: renterKey },
  });

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { ALLOW_PRIVATE_AGENT_HOSTS: "true", CATALOGUE_REFRESH_MS: "0" } });
  ctx = world.ctx;
  agentServer = await startHttpsServer((req, res) => void connected(req, res));
  ctx.services.egress = createEgressGuard({ ca: agentServer.ca, allowHosts: ["127.0.0.1"] });
  const app = buildApp(ctx.services);
  ({ server: api, url: baseUrl } = await serveApi(app));
  const creator = await fundedAccount(inject("rpcUrl"));
  await approveCreator(ctx, app, creator.address, (await signIn(app, creator)).token);
  agent = await publishConnectedAgent(ctx, app, creator, {
    name: "packed-agent",
    description: "Answers from the packed CLI",
    category: "research",
    model: { provider: "provider_a", model: "m" },
    entrypoint_url: `${agentServer.url}/agent`,
    input_schema: { type: "object", properties: {}, additionalProperties: false },
    output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
    timeout_seconds: 10,
  }, "one_time");
  secret = agent.webhookSecret;
  const renter = await fundedAccount(inject("rpcUrl"));
  renterKey = renter.privateKey;
  await writeMarketplace(marketTarget(ctx), renter, "purchaseOneTime", [agent.onChainId], agent.priceWei);
  await indexChain(ctx);
  renterApiKey = (await createKey(app, renter, (await signIn(app, renter)).token, "packed mcp")).key;

  work = mkdtempSync(join(tmpdir(), "agentrent-install-"));
  const packs = join(work, "packs");
  mkdirSync(packs);
  for (const pkg of ["sdk", "cli"]) await run("npm", ["pack", "--silent", "--pack-destination", packs], { cwd: join(ROOT, pkg), env: NPM_ENV, timeout: 180_000 });
  const tarballs = readdirSync(packs).map((file) => join(packs, file));
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "empty-folder", version: "1.0.0", private: true }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...tarballs], { cwd: work, env: NPM_ENV, timeout: 180_000 });
}, 420_000);

afterAll(async () => {
  await closeApi(api);
  await agentServer?.stop();
  await world?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The version of `name` this repository installs, so the empty folder's npm finds it in its cache. */
const repoVersion = (name: string): string => (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

/** Every file of an installed package, with its text. */
function installedFiles(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = join(entry.parentPath, entry.name);
      return { file, text: readFileSync(file, "utf8") };
    });
}

describe("the shared core", () => {
  it("is bundled into both packages, code and type declarations: nothing installed names @agent-rental/core, which is not installed", () => {
    for (const pkg of ["sdk", "cli"]) {
      // Source maps carry the sources as written (their imports name the core); what runs and what tsc reads must not.
      const files = installedFiles(join(work, "node_modules/@agent-rental", pkg)).filter(({ file }) => !file.endsWith(".map"));
      expect(files.length).toBeGreaterThan(2);
      expect(files.filter(({ text }) => text.includes("@agent-rental/core")).map(({ file }) => file)).toEqual([]);
    }
    expect(readdirSync(join(work, "node_modules/@agent-rental")).sort()).toEqual(["cli", "sdk"]);
  });
});

describe("the SDK tarball", () => {
  it("imports with plain node as an ES module and as CommonJS, and parses a cost above 2^53 exactly", async () => {
    const check = "console.log(typeof sdk.AgentRentalClient, typeof sdk.AgentRentalError, String(sdk.parseJson('{\"cost_wei\": 9007199254740993}').cost_wei))";
    const esm = await run(process.execPath, ["--input-type=module", "-e", `import * as sdk from "@agent-rental/sdk"; ${check}`], { cwd: work });
    const cjs = await run(process.execPath, ["-e", `const sdk = require("@agent-rental/sdk"); ${check}`], { cwd: work });
    expect(esm.stdout.trim()).toBe("function function 9007199254740993");
    expect(cjs.stdout.trim()).toBe("function function 9007199254740993");
    const mcp = await run(process.execPath, ["--input-type=module", "-e", 'import("@agent-rental/sdk/mcp").then((m) => console.log(typeof m.loadAgentMcpServer), (e) => console.log(e.code))'], { cwd: work });
    // ./mcp needs its optional peer dependency, absent here: the import names what is missing.
    expect(mcp.stdout.trim()).toBe("ERR_MODULE_NOT_FOUND");
  });

  it("the installed agent-rental-mcp, without its optional peer, says which package to install instead of a stack trace", async () => {
    const failed = await run(join(work, "node_modules/.bin/agent-rental-mcp"), [], {
      cwd: work,
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? "", AGENT_RENTAL_API_URL: baseUrl, AGENT_RENTAL_API_KEY: renterApiKey },
    }).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failed, "the program exits non-zero").toBeDefined();
    expect(failed!.code).toBe(1);
    const range = (JSON.parse(readFileSync(join(ROOT, "sdk/package.json"), "utf8")) as { peerDependencies: Record<string, string> }).peerDependencies["@modelcontextprotocol/sdk"];
    expect(failed!.stderr).toContain("the MCP server needs @modelcontextprotocol/sdk, an optional peer dependency of @agent-rental/sdk");
    expect(failed!.stderr).toContain(`npm install @modelcontextprotocol/sdk@"${range}"`);
    // No stack trace, no Node internals: the message alone.
    expect(failed!.stderr).not.toMatch(/^\s+at |node:internal|ERR_MODULE_NOT_FOUND/m);
    expect(failed!.stdout).toBe("");
  });

  describe("with the peers of ./ai, ./mcp and ./erc8004 installed beside it", () => {
    beforeAll(async () => {
      const peers = ["ai", "@modelcontextprotocol/sdk", "zod", "viem"].map((name) => `${name}@${repoVersion(name)}`);
      await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...peers], { cwd: work, env: NPM_ENV, timeout: 180_000 });
    }, 200_000);

    it("./ai, ./mcp and ./erc8004 import with plain node as ES modules and as CommonJS", async () => {
      const check = "console.log(typeof ai.rentedAgentTools, typeof ai.agentTool, typeof mcp.loadAgentMcpServer, typeof mcp.createAgentMcpServer, typeof erc8004.verifyReputation, erc8004.MAX_FEEDBACK_FILE_BYTES)";
      const esm = await run(process.execPath, ["--input-type=module", "-e", `import * as ai from "@agent-rental/sdk/ai"; import * as mcp from "@agent-rental/sdk/mcp"; import * as erc8004 from "@agent-rental/sdk/erc8004"; ${check}`], { cwd: work });
      const cjs = await run(process.execPath, ["-e", `const ai = require("@agent-rental/sdk/ai"); const mcp = require("@agent-rental/sdk/mcp"); const erc8004 = require("@agent-rental/sdk/erc8004"); ${check}`], { cwd: work });
      expect(esm.stdout.trim()).toBe("function function function function function 65536");
      expect(cjs.stdout.trim()).toBe("function function function function function 65536");
    });

    it("the installed agent-rental-mcp starts over stdio, lists the rented agent's tool with its schemas, and runs it", async () => {
      const transport = new StdioClientTransport({
        command: join(work, "node_modules/.bin/agent-rental-mcp"),
        cwd: work,
        env: { PATH: process.env.PATH ?? "", AGENT_RENTAL_API_URL: baseUrl, AGENT_RENTAL_API_KEY: renterApiKey, AGENT_RENTAL_REFRESH_SECONDS: "0" },
        stderr: "pipe",
      });
      const client = new Client({ name: "packed-mcp-test", version: "1.0.0" });
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(["run_agent", "packed_agent"]);
        expect(tools[1]).toMatchObject({ inputSchema: { type: "object", required: ["task"] }, outputSchema: { required: ["findings"] } });
        const result = (await client.callTool({ name: "packed_agent", arguments: { task: "over stdio" } })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({ findings: ["packed: over stdio"] });
      } finally {
        await client.close();
      }
    });

    it("the package's types resolve from the tarball for an ES module and a CommonJS consumer (tsc --noEmit, strict)", async () => {
      const consumer = (importLines: string) => `${importLines}
const client = new AgentRentalClient({ baseUrl: "https://api.example.com", apiKey: "svc_test_x" });
export async function costOf(request: ExecuteRequest): Promise<bigint> {
  const run: Run = await client.execute(request);
  // @ts-expect-error cost_wei is a bigint: the declarations were found, not an untyped module
  const asNumber: number = run.cost_wei;
  void asNumber;
  return run.cost_wei;
}
export const tools: typeof rentedAgentTools = rentedAgentTools;
export const server: typeof createAgentMcpServer = createAgentMcpServer;
export const verify: typeof verifyReputation = verifyReputation;
`;
      writeFileSync(
        join(work, "consumer.mts"),
        consumer(`import { AgentRentalClient, type ExecuteRequest, type Run } from "@agent-rental/sdk";
import { rentedAgentTools } from "@agent-rental/sdk/ai";
import { createAgentMcpServer } from "@agent-rental/sdk/mcp";
import { verifyReputation } from "@agent-rental/sdk/erc8004";`),
      );
      writeFileSync(
        join(work, "consumer.cts"),
        consumer(`import sdk = require("@agent-rental/sdk");
import ai = require("@agent-rental/sdk/ai");
import mcp = require("@agent-rental/sdk/mcp");
import erc8004 = require("@agent-rental/sdk/erc8004");
const { AgentRentalClient } = sdk;
type ExecuteRequest = sdk.ExecuteRequest;
type Run = sdk.Run;
const { rentedAgentTools } = ai;
const { createAgentMcpServer } = mcp;
const { verifyReputation } = erc8004;`),
      );
      writeFileSync(
        join(work, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", types: [], skipLibCheck: true }, files: ["consumer.mts", "consumer.cts"] }),
      );
      const tsc = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(work, "tsconfig.json"), "--traceResolution"], { cwd: work, timeout: 120_000, maxBuffer: 256 * 1024 * 1024 }).catch((error: { stdout?: string }) => {
        throw new Error(`tsc refused the consumer:\n${(error.stdout ?? "").split("\n").filter((l) => /error TS/.test(l)).join("\n")}`);
      });
      // (The trace of viem's declarations alone is many megabytes: hence the buffer.) Every entry resolved to the installed package's own declarations (ESM .d.ts, CommonJS .d.cts).
      for (const [entry, file] of [["@agent-rental/sdk", "index.d.ts"], ["@agent-rental/sdk/ai", "ai.d.ts"], ["@agent-rental/sdk/mcp", "mcp.d.ts"], ["@agent-rental/sdk/erc8004", "erc8004.d.ts"], ["@agent-rental/sdk", "index.d.cts"], ["@agent-rental/sdk/ai", "ai.d.cts"], ["@agent-rental/sdk/mcp", "mcp.d.cts"], ["@agent-rental/sdk/erc8004", "erc8004.d.cts"]] as const) {
        expect(tsc.stdout).toContain(`Module name '${entry}' was successfully resolved to '${join(work, "node_modules/@agent-rental/sdk/dist", file)}'`);
      }
    }, 120_000);
  });
});

describe("the CLI tarball", () => {
  it("the installed agentrent prints its version and help, signs in, searches and runs a task against the service", async () => {
    expect((await agentrent(["--version"])).stdout).toBe("agentrent 0.1.0\n");
    expect((await agentrent(["--help"])).stdout).toContain("agentrent <command>");
    // The ERC-8004 commands are in the installed bundle, with their help.
    expect((await agentrent(["help", "erc8004", "register"])).stdout).toContain("agentrent erc8004 register <listing>");
    expect((await agentrent(["runs", "rate", "--help"])).stdout).toContain("agentrent runs rate <run_id> --value <0-100>");
    const login = await agentrent(["login", "--json"]);
    expect(JSON.parse(login.stdout)).toMatchObject({ api_url: baseUrl });
    const search = JSON.parse((await agentrent(["search", "packed", "--json"])).stdout) as { listings: { id: string }[] };
    expect(search.listings.map((l) => l.id)).toContain(agent.listing_id);
    const executed = JSON.parse((await agentrent(["execute", agent.agent_id, "--task", "from the tarball", "--no-stream", "--json"])).stdout) as { status: string; output: unknown };
    expect(executed).toMatchObject({ status: "completed", output: { findings: ["packed: from the tarball"] } });
  });
});
